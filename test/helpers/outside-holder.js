// Test fixture: starts the service processes (`processes`), the remote host
// (`remote`) or the service containers (`containers`), prints what it started as one JSON line, then waits to be
// interrupted. The tests send SIGINT and check that nothing is left.
import { freePorts } from '../../bench/lib/ports.js'
import { startRemoteHost } from '../../bench/outside/remote-host.js'
import { startServiceProcesses } from '../../bench/outside/service-processes.js'
import { startServiceContainers } from '../../bench/outside/containers.js'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'

const kind = process.argv[2]
const free = await freePorts(DOWNSTREAM_SERVICES.length)
const ports = Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
if (kind === 'processes') {
  const started = await startServiceProcesses({ ports })
  process.stdout.write(JSON.stringify({ pids: Object.values(started.pids) }) + '\n')
} else if (kind === 'containers') {
  const started = await startServiceContainers({ ports })
  process.stdout.write(JSON.stringify({ runId: started.runId, pids: Object.values(started.pids) }) + '\n')
} else {
  const remote = await startRemoteHost({ rttMs: 0.25, ports })
  process.stdout.write(JSON.stringify({ namespace: remote.namespace, pids: [] }) + '\n')
}
setInterval(() => {}, 1000)
