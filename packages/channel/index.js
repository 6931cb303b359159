// @ts-check
export { ChannelError } from './lib/errors.js'
export { acceptPorts, openPort, wattMessaging, HANDSHAKE_PREFIX } from './lib/handshake.js'
