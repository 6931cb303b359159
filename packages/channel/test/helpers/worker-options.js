// @ts-check
// What the tests' worker threads start with: the test thread's execArgv without tap's
// own loaders (@tapjs/mock, @tapjs/processinfo). A worker inherits them by default, and
// they hook every module it loads: a callee worker took ~550 ms to answer its first
// message with them, ~120 ms without, and a CI run starts hundreds of workers (4 s each
// there). Coverage is unaffected: c8 reaches workers through NODE_V8_COVERAGE, and the
// package's ES modules load the same source with or without the hooks. (A fresh clone's
// first run once gave nonsense coverage here: tap's TypeScript loader was still in the
// test threads, since tap had not been built for our plugin list; `npm run setup` builds it.)
export const WORKER_EXEC_ARGV = process.execArgv.filter((arg) => !/[\\/]@tapjs[\\/]/.test(arg))
