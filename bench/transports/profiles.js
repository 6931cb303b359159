// @ts-check
// Load profiles of the transport comparison.
export const PROFILES = {
  // the original write-up's load: many connections, pipelined
  seed: { connections: 100, pipelining: 10 },
  // closer to a service's real traffic: few connections, one request at a time
  latency: { connections: 10, pipelining: 1 }
}
export const TRANSPORTS = /** @type {const} */ (['ipc', 'tcp', 'rpc', 'direct'])
