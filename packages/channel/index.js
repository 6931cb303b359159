// @ts-check
export { ChannelError, CODES, InvalidOptionError, RETRYABLE_CODES } from './lib/errors.js'
export { acceptPorts, openPort, wattMessaging, HANDSHAKE_PREFIX } from './lib/handshake.js'
export { serializeFirstContact } from './lib/first-contact.js'
export { connect, ChannelClient } from './lib/client.js'
export { KINDS, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_RING_BYTES } from './lib/options.js'
export { serve } from './lib/server.js'

// Types of the options and callbacks above, for TypeScript users (`import type { … } from '@watt-lab/channel'`).
/** @typedef {import('./lib/errors.js').ChannelErrorCode} ChannelErrorCode */
/** @typedef {import('./lib/client.js').Kind} Kind */
/** @typedef {import('./lib/client.js').ConnectOptions} ConnectOptions */
/** @typedef {import('./lib/server.js').Handler} Handler */
/** @typedef {import('./lib/server.js').ServeOptions} ServeOptions */
/** @typedef {ReturnType<typeof import('./lib/server.js').serve>} ChannelServer */
/** @typedef {import('./lib/handshake.js').Messaging} Messaging */
/** @typedef {import('./lib/flush.js').Flush} Flush */
