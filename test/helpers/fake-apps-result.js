// @ts-check
// A small synthetic apps result, the shape npm run bench:apps writes, for the tests
// of what is rendered from one (the README blocks, the report sections): per
// route and path two rounds (ipc 1,000 then 1,100 req/s, mesh-port 3×, tcp 2×; 10
// connections, 50 for a route at the busy load, `app/route@busy`),
// the summary made by the harness's own summarize().
import { summarize } from '../../bench/lib/results.js'

/** The apps of the fake result and what each is. */
export const FAKE_APPS = { catalog: 'gateway → db', orders: 'POSTs through the gateway', storefront: 'a backend-for-frontend' }

/**
 * @param {{ routes?: string[], failed?: string[] }} [options]  failed: `profile:path` pairs whose runs failed
 */
export function fakeAppsResult ({ routes = ['catalog/list', 'catalog/item', 'orders/insert', 'storefront/page'], failed = [] } = {}) {
  const rps = { ipc: 1000, 'mesh-port': 3000, tcp: 2000 }
  const runs = []
  for (const profile of routes) {
    const [app, route] = profile.replace(/@.*/, '').split('/')
    for (const round of [1, 2]) {
      for (const [path, value] of Object.entries(rps)) {
        const ok = !failed.includes(`${profile}:${path}`)
        runs.push({
          profile,
          target: path,
          app,
          route,
          path,
          round,
          connections: profile.endsWith('@busy') ? 50 : 10,
          ok,
          failures: ok ? [] : ['3 body mismatches'],
          requestsPerSec: ok ? value * (round === 1 ? 1 : 1.1) : null,
          latencyMs: { p50: 2, p99: path === 'ipc' ? 20 : 6 },
          resources: { cpuMicrosPerRequest: path === 'ipc' ? 900 : 300, rssAfterBytes: 3e8 },
          ...(app === 'orders' ? { writes: { lost: 0, duplicated: 0, acknowledged: 500 } } : {})
        })
      }
    }
  }
  return {
    schema: 'watt-transport-lab/result@1',
    suite: 'apps',
    source: 'results/fake-apps.json',
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:09:05.000Z',
    complete: true,
    failed: runs.some((r) => !r.ok),
    machine: { cpuModel: 'Test CPU', cores: 2, memoryBytes: 8 * 2 ** 30, os: 'Linux test', node: 'v24.0.0', versions: { wattpm: '3.67.0' }, git: { commit: 'abcdef123456', dirty: false } },
    config: { rounds: 2, duration: 4, warmup: 1, firstWarmup: 3, apps: FAKE_APPS, dataset: { seed: 44, categories: 100, products: 20000 } },
    runs,
    summary: summarize(/** @type {any} */ (runs), { baseline: 'ipc' })
  }
}
