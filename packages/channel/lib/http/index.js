// @ts-check
export { createHttpPortDispatcher, HTTP_PORT_KIND } from './dispatcher.js'
export { serveHttpPort, serveHttpPortInWatt } from './serve.js'
export { PortSocket, DEFAULT_WINDOW } from './port-socket.js'
export { openConnections } from './session.js'
