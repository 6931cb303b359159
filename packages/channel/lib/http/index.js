// @ts-check
export { createHttpPortDispatcher, HTTP_PORT_KIND, PortPool } from './dispatcher.js'
export { serveHttpPort, serveHttpPortInWatt } from './serve.js'
export { DEFAULT_WINDOW } from '../wire/signals.js'
export { openStreams as openConnections } from '../wire/port-mux.js'
