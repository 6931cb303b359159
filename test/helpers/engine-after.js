// tap's `after`: stops the dockerd engine-before.js started, and only that one.
import { setTimeout as sleep } from 'node:timers/promises'
import { readEngineState, writeEngineState } from './engine.js'

const { startedPid } = readEngineState()
if (startedPid) {
  try {
    process.kill(startedPid, 'SIGTERM')
    for (let i = 0; i < 120; i++) {
      process.kill(startedPid, 0)
      await sleep(250)
    }
  } catch {}
}
writeEngineState({})
