// tap's `before` (package.json): once per test run, before any test file, make
// sure a Docker engine answers and the lab's images are built, so the container
// tests run in parallel with one engine and one build. Starts dockerd (detached,
// it must outlive this script) only when none answers, and records that it did
// for engine-after.js, which stops only that one. Where no engine can run, writes
// why: the container tests skip with that reason.
import { spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildImages } from '../../deploy/images.js'
import { engineAnswers, engineSupport, onPath } from '../../bench/outside/docker.js'
import { ENGINE_LOG, writeEngineState } from './engine.js'

async function main () {
  // What an earlier, aborted run recorded is not this run's to stop.
  writeEngineState({})
  if (!(await engineAnswers())) {
    const support = engineSupport()
    if (!support.ok) return writeEngineState({ reason: support.reason })
    const dockerd = onPath('dockerd', process.env, ['/usr/sbin', '/sbin']) ?? 'dockerd'
    const log = openSync(ENGINE_LOG, 'a')
    const child = spawn(dockerd, [], { detached: true, stdio: ['ignore', log, log] })
    child.unref()
    writeEngineState({ startedPid: child.pid })
    const deadline = Date.now() + 60_000
    while (!(await engineAnswers())) {
      if (Date.now() > deadline || child.exitCode !== null) return writeEngineState({ startedPid: child.exitCode === null ? child.pid : undefined, reason: `dockerd did not start (its log: ${ENGINE_LOG})` })
      await sleep(250)
    }
    process.stdout.write(`# started dockerd (pid ${child.pid}) for this test run\n`)
  }
  const built = await buildImages()
  process.stdout.write(`# images: ${built.built.length ? `built ${built.built.join(', ')} in ${built.seconds.toFixed(0)} s` : 'up to date'}\n`)
}

main().catch((err) => {
  writeEngineState({ reason: `the images did not build: ${err.message.split('\n')[0]}` })
  process.stderr.write(`${err.stack}\n`)
})
