// npm run bench:realtime in its smallest form, end to end on two paths (tcp and
// the drop-in): 2 sockets of 64 B, 2 SSE subscribers, the leave check, one
// round of 1 s. Over tcp every run passes with its checks and figures: echoes
// counted, none wrong; SSE events all there; feed told that the client left.
// Over the drop-in each run either passes the same way or is FAILED with a
// reason (its WebSockets fail while it sends upgrades to the mesh), never a
// number; and the command ends by itself, well inside the test's time.
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

// two runtimes started on two cores shared with other work
t.setTimeout(300_000)

const exec = promisify(execFile)
const RUN = new URL('../../bench/realtime/run.js', import.meta.url).pathname
const TINY = ['--paths', 'tcp,mesh-port', '--sockets', '2', '--sizes', '64', '--subscribers', '2', '--event-rate', '50', '--duration', '1', '--warmup', '0', '--rounds', '1', '--quiet-wait', '0', '--connect-timeout', '3000']

t.test('the smallest run: checked figures over tcp, figures or FAILED with a reason over the drop-in', async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'realtime.json')
  const started = Date.now()
  const { code, stdout, stderr } = await exec(process.execPath, [RUN, ...TINY, '--out', out, '--report', join(dir, 'report')], { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }))
  t.ok(Date.now() - started < 240_000, 'it ended by itself')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.suite, 'realtime')
  t.equal(result.complete, true, `complete\n${stdout}\n${stderr}`)
  t.same(result.runs.map((r) => `${r.profile}@${r.path}`), ['ws 2×64 B@tcp', 'ws 2×64 B@mesh-port', 'sse 2@tcp', 'sse 2@mesh-port', 'client leaves@tcp', 'client leaves@mesh-port'])
  t.equal(code, result.failed ? 1 : 0, 'exit 1 exactly when a run failed')
  for (const run of result.runs) {
    const name = `${run.profile} on ${run.path}`
    if (run.path === 'tcp') t.equal(run.ok, true, `${name}: ${run.failures.join('; ')}`)
    if (!run.ok) {
      t.ok(run.failures.length > 0 && run.failures.every((f) => f.length > 10), `${name}: FAILED with a reason (${run.failures.join('; ')})`)
      t.equal(run.requestsPerSec ?? null, null, `${name}: no figure`)
      continue
    }
    if (run.kind === 'ws') {
      t.ok(run.ws.roundTrips > 0 && run.ws.mismatches === 0 && run.requestsPerSec > 0, `${name}: ${run.ws.roundTrips} echoes, none wrong`)
      t.ok(run.latencyMs.p99 > 0 && run.resources.cpuMicrosPerRoundTrip > 0, `${name}: latency and CPU per round trip`)
    }
    if (run.kind === 'sse') {
      t.match(run.sse, { lost: 0, duplicated: 0, outOfOrder: 0, corrupt: 0 }, `${name}: every event once, in order`)
      t.equal(run.sse.received, 2 * 50, `${name}: 2 streams × 50 events a second × 1 s`)
      t.ok(run.requestsPerSec > 0 && run.latencyMs.p99 > 0, `${name}: events/s and lag`)
    }
    if (run.kind === 'leave' && run.path === 'tcp') t.ok(run.leave.told && run.leave.delayMs >= 0 && run.leave.delayMs < run.leave.waitedMs, `${name}: feed told in ${run.leave.delayMs} ms`)
  }
  const md = readFileSync(join(dir, 'report.md'), 'utf8')
  t.match(md, /## WebSocket echo between two applications/)
  t.match(md, /## SSE fan-out through the entrypoint/)
  t.match(md, /## A client that leaves an SSE stream/)
})
