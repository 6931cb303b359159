// Preloaded into every Watt worker by the profiling config only (never by
// watt.json): samples this thread's CPU with the V8 profiler until the harness
// creates <dir>/stop, then writes <dir>/<application>.<worker index>.cpuprofile.
import { existsSync, renameSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { join } from 'node:path'
import { workerData } from 'node:worker_threads'

const dir = process.env.LAB_PROFILE_DIR
const application = workerData?.applicationConfig?.id
const worker = workerData?.worker?.index ?? 0

if (dir && application) {
  const session = new Session()
  session.connect()
  session.post('Profiler.enable')
  session.post('Profiler.setSamplingInterval', { interval: 250 }) // µs
  session.post('Profiler.start')
  const poll = setInterval(() => {
    if (!existsSync(join(dir, 'stop'))) return
    clearInterval(poll)
    session.post('Profiler.stop', (err, result) => {
      // write then rename: the harness must never read a half-written profile
      const file = join(dir, `${application}.${worker}.cpuprofile`)
      writeFileSync(`${file}.partial`, err ? JSON.stringify({ error: err.message }) : JSON.stringify(result.profile))
      renameSync(`${file}.partial`, file)
      session.disconnect()
    })
  }, 100)
  poll.unref()
}
