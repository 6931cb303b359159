// tap's `before` (package.json): forget what an earlier, aborted run recorded
// about the engine (its dockerd is not this run's to stop). The container tests
// start one when they need it (test/helpers/engine.js); unrelated runs start nothing.
import { rmSync } from 'node:fs'
import { writeEngineState } from './engine.js'

writeEngineState({})
rmSync(new URL('../../.cache/test-engine.lock', import.meta.url), { recursive: true, force: true })
