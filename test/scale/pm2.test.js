// PM2 stays isolated and leaves nothing behind: not after a run, not after
// Ctrl-C, and a daemon orphaned by a killed run is stopped by the next one.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { freePorts, isListening } from '../../bench/lib/ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { isAlive } from '../../bench/scale/alive.js'
import { HOME_PREFIX, killStaleDaemons, processProblems, recordedPids } from '../../bench/scale/pm2.js'
import { startTarget } from '../../bench/scale/targets.js'

// A private, short temp folder (PM2 puts unix sockets in its home: paths must stay short).
const base = mkdtempSync(join(tmpdir(), 'wsp-'))
process.env.TMPDIR = base
t.teardown(() => rmSync(base, { recursive: true, force: true }))
const homes = () => readdirSync(base).filter((name) => name.startsWith(HOME_PREFIX)).map((name) => join(base, name))
const RUN = new URL('../../bench/scale/run.js', import.meta.url).pathname

/** Polls until `fn` returns something truthy. */
async function until (fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await fn()
    if (value) return value
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

t.test('PM2\'s view of the app: count, status and restarts', async (t) => {
  const online = (id) => ({ name: 'scale', pm2_env: { pm_id: id, status: 'online', restart_time: 0 } })
  t.same(processProblems([online(0), online(1)], 2), [])
  t.same(processProblems([online(0)], 2), ['pm2 lists 1 instance(s), expected 2'])
  t.same(processProblems([online(0), { name: 'scale', pm2_env: { pm_id: 1, status: 'stopped', restart_time: 1 } }], 2),
    ['pm2 instance 1 is stopped', 'pm2 instance 1 restarted 1 time(s)'])
})

t.test('cluster mode in a private home, and nothing left after stop', async (t) => {
  const [port] = await freePorts(1)
  const started = await startTarget('pm2', 2, port, { readyTimeoutMs: 120_000 })
  const [home] = homes()
  t.ok(home, 'a private PM2_HOME under the temp folder')
  t.ok(existsSync(join(home, 'touch')), 'first-run marker written (no install ping)')
  t.same(JSON.parse(readFileSync(join(home, 'module_conf.json'), 'utf8')), { pm2: { sysmonit: 'false' } }, 'host metrics off')
  const [app] = JSON.parse(readFileSync(join(home, 'ecosystem.json'), 'utf8')).apps
  t.match(app, { exec_mode: 'cluster', instances: 2, autorestart: false, pmx: false, automation: false, vizion: false, env: { PORT: String(port) } })
  const pids = recordedPids(home)
  t.equal(pids.length, 3, 'a daemon and two workers')
  t.equal(started.workerIds.length, 2)
  t.same(await started.problems(), [])

  const { leftovers, forced } = await started.stop()
  t.same(leftovers, [])
  t.same(forced, [], 'pm2 kill was enough')
  t.same(pids.filter(isAlive), [], 'daemon and workers are gone')
  t.same(homes(), [], 'the home is removed')
  t.equal(await isListening(port), false)
})

t.test('Ctrl-C during a run stops the daemon and keeps the partial result', async (t) => {
  const out = join(base, 'interrupted.json')
  const run = spawnTracked(process.execPath, [RUN, '--targets', 'pm2', '--scale', '1', '--duration', '300', '--warmup', '0', '--wrk', 'off', '--out', out], { env: process.env })
  const home = await until(() => homes().find((h) => recordedPids(h).length >= 2), 120_000, 'the PM2 daemon and its worker')
  const pids = recordedPids(home)
  const port = Number(JSON.parse(readFileSync(join(home, 'ecosystem.json'), 'utf8')).apps[0].env.PORT)
  await until(() => isListening(port), 60_000, 'the worker to listen')
  await sleep(500)
  run.child.kill('SIGINT')
  const { code } = await run.exited
  t.equal(code, 130, 'exits 130')
  t.same(pids.filter(isAlive), [], 'daemon and worker are gone')
  t.same(homes(), [], 'the home is removed')
  t.equal(await isListening(port), false)
  t.match(JSON.parse(readFileSync(out, 'utf8')), { suite: 'scale', interrupted: true, complete: false, failed: true })
})

t.test('a daemon orphaned by a killed run is stopped before the next start', async (t) => {
  const run = spawnTracked(process.execPath, [RUN, '--targets', 'pm2', '--scale', '1', '--duration', '300', '--warmup', '0', '--wrk', 'off', '--out', join(base, 'killed.json')], { env: process.env })
  const home = await until(() => homes().find((h) => recordedPids(h).length >= 2), 120_000, 'the PM2 daemon and its worker')
  const pids = recordedPids(home)
  run.child.kill('SIGKILL') // no clean-up can run
  await run.exited
  t.ok(pids.every(isAlive), 'the daemon and its worker outlive the killed run')

  const killed = await killStaleDaemons()
  t.same(killed.sort(), [...pids].sort(), 'reports what it stopped')
  t.same(pids.filter(isAlive), [], 'all gone')
  t.same(homes(), [], 'the home is removed')
})

t.test('a home whose owner is still running is left alone', async (t) => {
  const owner = spawnTracked('sleep', ['10'])
  t.teardown(() => owner.child.kill('SIGKILL'))
  const home = mkdtempSync(join(base, HOME_PREFIX))
  writeFileSync(join(home, 'owner.pid'), String(owner.child.pid))
  t.same(await killStaleDaemons(), [])
  t.ok(existsSync(home), 'still there')
  rmSync(home, { recursive: true, force: true })
})
