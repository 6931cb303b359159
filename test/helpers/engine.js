// What the container tests share: whether an engine answers for this test run
// (test/helpers/engine-before.js makes sure of it once), and if not, why.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { engineAnswers, engineSupport } from '../../bench/outside/docker.js'

const DIR = join(import.meta.dirname, '..', '..', '.cache')
const STATE = join(DIR, 'test-engine.json')
export const ENGINE_LOG = join(DIR, 'test-dockerd.log')

/** @param {{ startedPid?: number, reason?: string }} state */
export function writeEngineState (state) {
  mkdirSync(DIR, { recursive: true })
  writeFileSync(STATE, JSON.stringify(state))
}

export function readEngineState () {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8'))
  } catch {
    return {}
  }
}

/** false when the engine answers, else the reason to skip (for tap's `skip`). */
export async function engineSkip () {
  if (await engineAnswers()) return false
  const support = engineSupport()
  const reason = readEngineState().reason ?? (support.ok ? 'no engine answers (the test run\'s before step, test/helpers/engine-before.js, starts one: run through npm test / tap)' : support.reason)
  return `no Docker engine can run here: ${reason}`
}
