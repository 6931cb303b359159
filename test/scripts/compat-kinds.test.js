// npm run compat's kinds axis (scripts/compat/kinds.js). Every kind folder pins its
// packages and commits a lockfile that matches them; npm test runs the whole check on the
// lightest kind only (NestJS: installs in seconds, needs no build). Next.js and the Vite SSR
// kind install hundreds of megabytes and build: `npm run compat` runs them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { checkKinds, dropInDecisions, kindNames, readKind } from '../../scripts/compat/kinds.js'

test('every kind pins its packages exactly, and its lockfile locks the same', async (t) => {
  const names = kindNames()
  t.ok(names.includes('nest') && names.includes('next') && names.includes('vite'), `kinds: ${names.join(', ')}`)
  t.equal(names[0], 'nest', 'the light kind first (npm test runs it)')
  for (const name of names) {
    const kind = readKind(name) // throws on a range that is not an exact version
    const lock = JSON.parse(readFileSync(join(kind.dir, 'package-lock.json'), 'utf8'))
    t.same(lock.packages[''].dependencies, kind.dependencies, `${name}: package-lock.json was written from this package.json`)
    for (const [dep, version] of Object.entries(kind.dependencies)) {
      t.equal(lock.packages[`node_modules/${dep}`]?.version, version, `${name}: ${dep} locked at ${version}`)
    }
    t.ok(kind.dependencies.wattpm && kind.dependencies[kind.capability] && kind.dependencies[kind.framework], `${name}: wattpm, ${kind.capability} and ${kind.framework} pinned`)
    t.ok(kind.checks.some((c) => c.calls.frontend), `${name}: a check has the api call the frontend back (the kind as a callee)`)
  }
})

test('the drop-in\'s log lines give its decision per target', async (t) => {
  const output = [
    '{"level":30,"name":"frontend","msg":"mesh-port: api over http-port (2 workers)"}',
    '{"level":30,"name":"api","msg":"mesh-port: frontend over Watt\'s mesh: no node:http server in this worker"}'
  ].join('\n')
  t.same(dropInDecisions(output), { api: 'http-port (2 workers)', frontend: "Watt's mesh: no node:http server in this worker" })
})

test('NestJS under @platformatic/nest: the same answers over the mesh and the drop-in, every call over http-port', async (t) => {
  const lines = []
  const [result] = await checkKinds(['nest'], { rounds: 2, log: (line) => lines.push(line) })
  t.comment(lines.join('\n'))
  t.same(result.problems, [], 'no difference, no call unaccounted for')
  t.equal(result.result, 'pass')
  t.equal(result.installed['@platformatic/nest'], '3.69.0')
  t.equal(result.installed['@nestjs/core'], '11.2.10')
  const toApi = result.calls['frontend → api']
  t.equal(toApi['http-port'], toApi.calls, `Nest → api: ${toApi['http-port']} of ${toApi.calls} calls over http-port (counter)`)
  t.match(toApi.decided, /^http-port \(\d workers?\)$/, `the drop-in's log: api over ${toApi.decided}`)
  const back = result.calls['api → frontend']
  t.equal(back['http-port'], back.calls, `api → Nest: ${back['http-port']} of ${back.calls} over http-port: the drop-in serves the Nest app too`)
})
