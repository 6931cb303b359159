// @ts-check
// A small synthetic realtime result, the shape npm run bench:realtime writes, for
// the tests of what is rendered from one (the report, the README block): two
// rounds; WebSocket echo at 10×64 B on every path (the mesh's rows refused at
// open, tcp 10,000 and 11,000 round trips/s, mesh-port 1.5× tcp unless listed
// as failed), SSE to 10 subscribers (ipc 1,800 events/s, tcp and mesh-port
// 2,000), and a client that leaves (tcp and mesh-port told in 8 and 10 ms, the
// mesh never). The summary is the harness's own summarize().
import { summarize } from '../../bench/lib/results.js'
import { PATHS } from '../../bench/realtime/plan.js'

const REFUSED = '10 of 10 WebSocket(s) to ws://chat.plt.local/echo did not open: error event, message "", then close 1006 before open (×10)'

/**
 * @param {{ failed?: string[] }} [options]  `profile:path` pairs whose runs failed (with a WebSocket refusal's reason)
 */
export function fakeRealtimeResult ({ failed = [] } = {}) {
  const runs = []
  for (const round of [1, 2]) {
    const k = round === 1 ? 1 : 1.1
    for (const path of PATHS) {
      const profile = 'ws 10×64 B'
      const refused = path === 'ipc' || failed.includes(`${profile}:${path}`)
      runs.push({
        target: path,
        path,
        profile,
        kind: 'ws',
        sockets: 10,
        size: 64,
        round,
        ok: !refused,
        failures: refused ? [REFUSED] : [],
        requestsPerSec: refused ? null : (path === 'tcp' ? 10_000 : 15_000) * k,
        connectFailed: refused,
        ...(refused ? {} : { latencyMs: { avg: 1, p50: 0.5, p90: 1, p99: path === 'tcp' ? 3 : 2, max: 9 } }),
        ws: refused ? { sockets: 10, connected: 0 } : { sockets: 10, connected: 10, roundTrips: 30_000, mismatches: 0 },
        resources: refused ? {} : { cpuMicrosPerRoundTrip: path === 'tcp' ? 90 : 60, edgeCpuMicrosPerRoundTrip: 30 }
      })
    }
    for (const path of PATHS) {
      const profile = 'sse 10'
      const bad = failed.includes(`${profile}:${path}`)
      runs.push({
        target: path,
        path,
        profile,
        kind: 'sse',
        subscribers: 10,
        round,
        ok: !bad,
        failures: bad ? ['3 of 10 stream(s) failed the event check: 2 lost'] : [],
        requestsPerSec: bad ? null : (path === 'ipc' ? 1800 : 2000) * k,
        ...(bad ? {} : { latencyMs: { avg: 2, p50: 1, p90: 2, p99: path === 'ipc' ? 40 : 8, max: 50 } }),
        sse: { offeredPerSec: 2000, received: 10_000, lost: bad ? 2 : 0, duplicated: 0, outOfOrder: 0, corrupt: 0 },
        resources: { cpuMicrosPerEvent: path === 'ipc' ? 200 : 100 },
        loadgen: { cpuSeconds: 0.3, cpuPercent: 10 }
      })
    }
    for (const path of PATHS) {
      const told = path !== 'ipc'
      runs.push({
        target: path,
        path,
        profile: 'client leaves',
        kind: 'leave',
        round,
        ok: true,
        failures: [],
        requestsPerSec: null,
        leave: { told, delayMs: told ? (path === 'tcp' ? 8 : 10) : null, waitedMs: 2000, eventsBeforeLeave: 5, writtenAfterLeave: told ? 0 : 99, producerState: 'publishing' }
      })
    }
  }
  return {
    schema: 'watt-transport-lab/result@1',
    suite: 'realtime',
    source: 'results/fake-realtime.json',
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:09:05.000Z',
    complete: true,
    failed: runs.some((r) => !r.ok),
    interrupted: false,
    machine: { cpuModel: 'Test CPU', cores: 2, memoryBytes: 8 * 2 ** 30, os: 'Linux test', node: 'v24.0.0', versions: { wattpm: '3.67.0', ws: '8.23.0' }, git: { commit: 'abcdef123456', dirty: false } },
    config: { rounds: 2, duration: 3, warmup: 1, eventRate: 200, eventSize: 64, leaveAfter: 5, leaveWait: 2000 },
    runs,
    summary: summarize(/** @type {any} */ (runs), { baseline: 'tcp' })
  }
}
