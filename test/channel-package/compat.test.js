// npm run compat on one release other than the project's own Watt (3.67.0), so
// CI runs the command itself: the release's lockfile installed in a temp app, the
// tarball on top, every call over http-port, a result JSON that says so.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_NODE, PROJECT_ROOT } from '../../bench/lib/paths.js'

const RELEASE = '3.54.0'

t.test(`npm run compat -- --releases ${RELEASE}: passes, every call over http-port`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compat-result-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'compat.json')
  const { stdout } = await promisify(execFile)(PROJECT_NODE, [join(PROJECT_ROOT, 'scripts', 'compat.js'), '--releases', RELEASE, '--out', out], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CI: '1' }, // progress as lines, not a live bar
    maxBuffer: 16 * 1024 * 1024
  })
  t.match(stdout, new RegExp(`${RELEASE.replace(/\./g, '\\.')}\\s*│\\s*pass`), 'the table shows the release passed')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.failed, false)
  t.equal(result.releases.length, 1)
  const [release] = result.releases
  t.match(release, { release: RELEASE, result: 'pass', reason: '', installed: { wattpm: RELEASE, '@platformatic/runtime': RELEASE } })
  for (const [target, seen] of Object.entries(release.calls)) {
    t.ok(seen.calls > 0 && seen['http-port'] === seen.calls && seen.mesh === 0, `front→${target}: ${JSON.stringify(seen)}`)
  }
})
