// Where network namespaces cannot be made (here: the bench run without the
// capabilities they need), tcp-remote is skipped with a clear reason and the other
// transports run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { QUICK, bench } from '../helpers/outside-bench.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(600_000)

t.test('where namespaces cannot be made, tcp-remote is skipped with the reason and the rest runs', async (t) => {
  // As root, drop every capability for this run (still root, so a checkout in a
  // private directory stays readable, unlike as another user); otherwise we are
  // unprivileged already.
  const prefix = process.getuid() === 0 ? ['setpriv', '--bounding-set=-all', '--inh-caps=-all', 'env', '-u', 'NODE_OPTIONS'] : []
  const dir = mkdtempSync(join(tmpdir(), 'outside-skip-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'r.json')
  const { code, stdout, stderr } = await bench(['--transports', 'direct,tcp-remote', ...QUICK, '--out', out, '--report', join(dir, 'report')], { prefix, env: { HOME: dir } })
  t.equal(code, 0, `exit 0\n${stdout}\n${stderr}`)
  t.match(stderr, /tcp-remote skipped: it needs a network namespace, and network namespaces and veth pairs need root/)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.same(result.runs.map((r) => r.target), ['direct'])
  t.match(result.config.outside.skipped, [{ transport: 'tcp-remote', reason: /need root/ }])
  t.match(readFileSync(join(dir, 'report.md'), 'utf8'), /Not run: tcp-remote skipped/)
  const alone = await bench(['--transports', 'tcp-remote', ...QUICK, '--out', join(dir, 'none.json')], { prefix, env: { HOME: dir } })
  t.equal(alone.code, 2, 'nothing left to run: exit 2')
  t.match(alone.stderr, /nothing left to run: tcp-remote skipped/)
})
