// @ts-check
export { ChannelError } from './lib/errors.js'
export { acceptPorts, openPort, wattMessaging, HANDSHAKE_PREFIX } from './lib/handshake.js'
export { serializeFirstContact } from './lib/first-contact.js'
export { connect, ChannelClient, KINDS, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_RING_BYTES } from './lib/client.js'
export { serve } from './lib/server.js'
