// @ts-check
// A service container's command: runs the one downstream service named by
// $SERVICE, the very file Watt runs (web/<service>/), as its own process.
import { DOWNSTREAM_SERVICES } from '../lib/contract.js'
import { serviceEntryFile } from '../bench/outside/service-processes.js'

const service = process.env.SERVICE ?? ''
if (!(/** @type {readonly string[]} */ (DOWNSTREAM_SERVICES)).includes(service)) {
  process.stderr.write(`SERVICE must be one of ${DOWNSTREAM_SERVICES.join(', ')}, got ${JSON.stringify(service)}\n`)
  process.exit(2)
}
// Kubernetes stops a container with SIGTERM: exit at once (the services hold no state).
process.on('SIGTERM', () => process.exit(0))
await import(serviceEntryFile(service))
