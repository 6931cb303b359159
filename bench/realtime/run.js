// @ts-check
// The realtime suite: WebSockets and Server-Sent Events between applications
// of one Watt runtime (edge → chat, edge ← feed), over Watt's mesh, loopback
// TCP and the mesh-port drop-in, each from its config file alone: a WebSocket
// echo (every echo checked), an SSE fan-out through the entrypoint (every
// event checked: none lost, none repeated, in order) and a client that leaves
// a stream. Rounds interleaved across the paths, median with min and max.
//   npm run bench:realtime                         defaults (≤ 6 min on 2 cores)
//   npm run bench:realtime -- --kinds ws --paths tcp,mesh-port --sockets 10 --sizes 64
import { runSuiteCommand } from '../lib/driver.js'
import { describeRealtimeRun, realtimeTable } from './console.js'
import { measureRealtime } from './measure.js'
import { isMeshWebSocketRefusal } from './figures.js'
import { casesFrom, FLAGS, secondsPerCase, TCP_PATH } from './plan.js'
import { realtimeReport } from './report.js'
import { isAlive, stopAll } from '../lib/runtime-set.js'
import { startPathRuntimes } from './runtimes.js'

runSuiteCommand({
  name: 'realtime',
  command: 'node bench/realtime/run.js',
  description: 'WebSockets and SSE between the applications of one Watt runtime over Watt\'s mesh, loopback TCP and the mesh-port drop-in: a verified WebSocket echo, a verified SSE fan-out through the entrypoint, and a client that leaves a stream.',
  flags: FLAGS,
  plan: (flags) => ({
    cases: casesFrom(flags),
    rounds: flags.rounds,
    secondsPerCase: secondsPerCase(flags),
    extraPackages: ['@platformatic/node', 'ws', 'eventsource-parser'],
    ...(flags.paths.includes(TCP_PATH) && flags.paths.length > 1 ? { baseline: TCP_PATH } : {}),
    config: { apps: { edge: 'the entrypoint (node:http): drives the WebSocket load, proxies SSE', chat: 'node:http + ws on \'upgrade\': echo', feed: 'node:http: SSE topics' } }
  }),
  setup: async (flags) => {
    /** @type {Map<string, import('./runtimes.js').PathRuntime>} */
    const runtimes = await startPathRuntimes(flags.paths)
    process.stderr.write(`started ${[...runtimes.values()].map((r) => `${r.path} (pid ${r.pid})`).join(', ')}\n`)
    /** @type {import('./measure.js').RealtimeContext} */
    const realtime = {
      runtimeFor: async (path) => {
        const runtime = /** @type {import('./runtimes.js').PathRuntime} */ (runtimes.get(path))
        if (isAlive(runtime)) return runtime
        // a runtime that died fails its run (the error says why); the next run gets a new one
        process.stderr.write(`${path}: the runtime (pid ${runtime.pid}) is gone; starting a new one\n`)
        const [fresh] = (await startPathRuntimes([path])).values()
        runtimes.set(path, fresh)
        throw new Error(`the ${path} runtime (pid ${runtime.pid}) had exited: ${runtime.output().split('\n').slice(-3).join(' | ')}`)
      }
    }
    return { realtime, stop: () => stopAll(runtimes) }
  },
  measure: (kase, { round, flags, context }) => measureRealtime(/** @type {import('./plan.js').RealtimeCase} */ (kase), { round, flags, context: context.realtime }),
  // Watt's mesh carries no WebSocket (its upgrade never reaches chat): its rows say so, with the error
  refusedByDesign: {
    test: isMeshWebSocketRefusal,
    message: 'the only failed runs are the WebSocket rows over Watt\'s mesh, which carries no upgrade: reported as such'
  },
  describe: describeRealtimeRun,
  renderTable: realtimeTable,
  report: realtimeReport
})
