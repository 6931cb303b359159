// @ts-check
// npm run transports: the registry (lib/topology.js) as a table: each transport,
// what it is, whether it crosses threads or speaks HTTP, what it needs, and
// whether it can run here (and if not, why). `--json` prints the same as JSON.
import { availabilityOf, defaultBenchTransports, requirementsOf, TRANSPORTS } from '../lib/topology.js'

const inDefault = new Set(defaultBenchTransports())
const rows = TRANSPORTS.map((t) => {
  const availability = availabilityOf(t.name)
  const startable = availabilityOf(t.name, process.env, { startable: true })
  return {
    name: t.name,
    description: t.description,
    crossesThreads: t.crossesThreads,
    http: t.http,
    requires: requirementsOf(t.name).map((r) => `${r.tag} (${r.description})`).join(', ') || null,
    inDefaultBench: inDefault.has(t.name),
    status: availability.available ? 'runs here' : startable.available ? 'the bench starts what it needs' : `unavailable: ${availability.reason}`
  }
})

if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
} else {
  for (const row of rows) {
    const flags = [row.crossesThreads ? 'crosses threads (bounded per service)' : 'in the entry thread', row.http ? 'HTTP' : 'no HTTP', row.inDefaultBench ? 'in the default bench' : 'not in the default bench']
    process.stdout.write(`${row.name.padEnd(12)} ${row.description}\n${' '.repeat(13)}${flags.join(' · ')}${row.requires ? ` · requires ${row.requires}` : ''} · ${row.status}\n`)
  }
}
