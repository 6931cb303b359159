// @ts-check
// Faults: load on every transport at once while one downstream service fails
// through Watt. The same fault event is seen by all four transports, so their
// error windows and recovery times compare side by side. Pass = the entry never
// crashes or hangs, every error is a 502/504 naming the service within the
// per-call timeout, and errors stop within the limit once the service is back.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { runLoad } from '../../lib/load.js'
import { entryUrl, expectedEntryBody } from '../../transports/expected.js'
import { availableTransports, transportNamed } from '../../../lib/topology.js'
import { FAULT_KINDS } from '../faults/kinds.js'
import { openObserver } from '../faults/observer.js'
import { faultLoadSpan } from '../faults/load-span.js'
import { errorWindow } from '../faults/window.js'
import { isAlive, restartCounts, transportStatuses, waitUntilSettled } from '../health.js'
import { servicePort } from '../private-runtime.js'

/** The transport that calls nobody (lib/topology.js): what its answers wait for is the entry alone. */
const FLOOR = 'direct'

/**
 * @typedef {object} FaultOptions
 * @property {string} kind              a FAULT_KINDS name
 * @property {string} service           the downstream service that fails
 * @property {number} holdMs            how long a hang or a stop lasts
 * @property {number} connections       autocannon connections per transport (pipelining 1)
 * @property {number} probeRateHz       timed requests per second per transport, sent at a steady rate
 * @property {number} preMs             load before the fault
 * @property {number} postMs            load after the service is expected back
 * @property {number} recoveryLimitMs   errors must stop this soon after the service is back
 * @property {number} latencySlackMs    an error may take the per-call timeout plus this, plus the p99 of
 *                                      successes meanwhile (queueing on a busy box delays both alike)
 * @property {(elapsedS: number) => void} [onTick]
 * @property {string[]} [transports]    under load (default: every transport available here)
 * @property {string} [outside]         process-crash: the outside transport whose service process fails
 * @property {import('../../outside/targets.js').ServiceFaults | null} [processes]  and how to fail it
 */

/**
 * @param {import('../private-runtime.js').PrivateRuntime} runtime
 * @param {import('../watt-control.js').WattControl} control
 * @param {FaultOptions} options
 */
export async function faultUnderLoad (runtime, control, options) {
  const { kind: kindName, service, holdMs, connections, probeRateHz, preMs, postMs, recoveryLimitMs, latencySlackMs, onTick, outside, processes = null } = options
  const kind = FAULT_KINDS[kindName]
  if (!kind) throw new Error(`unknown fault ${kindName}`)
  /** @type {{ name: string, ok: boolean, detail?: string }[]} */
  const checks = []
  const check = (/** @type {string} */ name, /** @type {boolean} */ ok, /** @type {string} */ detail = '') => { checks.push({ name, ok, detail }) }

  await waitUntilSettled(runtime.url)
  const before = await transportStatuses(runtime.url)
  if (Object.values(before).some((status) => status !== 200)) throw new Error(`the runtime was not healthy before the fault: ${JSON.stringify(before)}`)
  const restartsBefore = await restartCounts(runtime.metricsUrl)

  const TRANSPORTS = options.transports ?? availableTransports()
  if (kind.outside && (!outside || !TRANSPORTS.includes(outside))) throw new Error(`${kindName} needs the outside transport it fails among the transports under load`)
  // before the load: a prober's connections opened under it wait seconds to be accepted
  const observers = await Promise.all(TRANSPORTS.map((transport) => openObserver({
    baseUrl: runtime.url, transport, service, rateHz: probeRateHz, timeoutMs: runtime.callTimeoutMs + 10_000
  })))
  const span = faultLoadSpan({ preMs, budgetMs: kind.budgetMs(holdMs), postMs })
  const started = performance.now()
  const now = () => performance.now() - started
  // Which transports must see the fault: for a Watt worker's, every one that calls that worker
  // (not the outside transports: their targets are other processes); for a process crash only its own.
  const disrupted = (/** @type {string} */ transport) => kind.outside
    ? transport === outside
    : transportNamed(transport).crossesThreads && !transportNamed(transport).requires
  const loads = TRANSPORTS.map((transport, i) => runLoad({
    url: entryUrl(runtime.url, transport, 64, 4),
    connections,
    pipelining: 1,
    duration: span.maxDurationS,
    signal: span.signal,
    expectBody: expectedEntryBody(transport, 64, 4), // 502/504 bodies count too: see wrong2xx below
    onTick: i === 0 ? onTick : undefined
  }))
  for (const observer of observers) observer.start(now)

  /** @type {{ injectedAt: number, backAt: number } | null} */
  let fault = null
  let injectError = null
  try {
    await sleep(preMs)
    fault = await kind.inject({ control, service, helloUrl: `http://127.0.0.1:${servicePort(runtime.ports, service)}/hello`, holdMs, now, processes })
  } catch (err) {
    injectError = /** @type {Error} */ (err).message
  }
  await span.endAfterFault(now())
  const loadResults = await Promise.all(loads)
  const probes = await Promise.all(observers.map((observer) => observer.stop()))
  const loadEndedAt = now()

  check('fault injected and the service back', fault !== null, injectError ?? '')
  check('runtime process alive', isAlive(runtime.pid))
  const after = await transportStatuses(runtime.url)
  check('every transport answers 200 afterwards', Object.values(after).every((status) => status === 200), JSON.stringify(after))
  const restartsAfter = await restartCounts(runtime.metricsUrl)
  for (const app of Object.keys(restartsBefore)) {
    const added = (restartsAfter[app] ?? 0) - restartsBefore[app]
    const expected = app === service ? kind.restartsAdded : 0
    check(`${app} restarted ${expected} time(s)`, added === expected, `restarted ${added} time(s)`)
  }
  if (fault && loadEndedAt - fault.backAt < 1000) {
    check('load ran on after the service was back', false, `only ${Math.round(loadEndedAt - fault.backAt)} ms; raise --post-ms`)
  }

  const windowOf = fault ?? { injectedAt: preMs, backAt: loadEndedAt }
  const windows = probes.map((probe) => errorWindow(probe.observations, windowOf))
  // How long the entry itself held an answer meanwhile: `direct` calls nobody, so its
  // slowest answer is the entry's own stall (seen: ~2 s while Watt restarted a crashed
  // worker on a loaded 2-core box). Every request in flight then was an error, so the
  // successes' p99 cannot show it, and errors are allowed it on top.
  const entryStallMs = windows[TRANSPORTS.indexOf(FLOOR)]?.maxOkLatencyMs ?? 0
  /** @type {Record<string, any>} */
  const transports = {}
  TRANSPORTS.forEach((transport, i) => {
    const load = loadResults[i]
    const window = windows[i]
    const codes = Object.keys(load.status.byCode).filter((code) => !code.startsWith('2'))
    const wrong2xx = Math.max(0, load.mismatches - load.status.non2xx) // every 502/504 body differs from the 200 body
    const calls = disrupted(transport) // the others (direct; for a process crash, every other transport) do not see it
    transports[transport] = {
      load: { totalRequests: load.totalRequests, '2xx': load.status['2xx'], non2xx: load.status.non2xx, byCode: load.status.byCode, errors: load.errors, timeouts: load.timeouts, wrong2xx, latencyMs: load.latencyMs },
      ...window,
      probesSkipped: probes[i].skipped
    }
    const t = (/** @type {string} */ name) => `${transport}: ${name}`
    check(t('no connection error or timeout under load'), load.errors === 0 && load.timeouts === 0, `${load.errors} errors, ${load.timeouts} timeouts`)
    check(t('answers only 2xx, 502 or 504'), codes.every((code) => code === '502' || code === '504'), JSON.stringify(load.status.byCode))
    check(t('every 200 carries the verified body'), wrong2xx === 0, `${wrong2xx} wrong 200 bodies`)
    check(t(`every error is a 502/504 naming ${service}`), window.wrongAnswers === 0, window.wrongSamples.join(' | '))
    const limit = runtime.callTimeoutMs + latencySlackMs + Math.max(window.okLatencyP99Ms ?? 0, entryStallMs)
    check(t(`errors answered within the ${runtime.callTimeoutMs} ms call timeout (+ ${latencySlackMs} ms + successes' p99 or the entry's stall)`), (window.maxErrorLatencyMs ?? 0) <= limit,
      `slowest error ${window.maxErrorLatencyMs} ms, limit ${limit} ms (successes' p99 ${window.okLatencyP99Ms} ms, ${FLOOR}'s slowest answer ${entryStallMs} ms)`)
    // plus the successes' p99 measured in the same window: on a loaded box every answer is late, the last error too
    const recoveryLimit = recoveryLimitMs + (window.okLatencyP99Ms ?? 0)
    check(t(`errors stop within ${recoveryLimitMs} ms (+ successes' p99) of the service being back`), window.recoveryMs <= recoveryLimit, `last error ${window.recoveryMs} ms after, limit ${recoveryLimit} ms`)
    check(t('serves verified answers again'), window.servedAgain)
    if (!calls) check(t(`unaffected (${kind.outside ? `${outside}'s target failed` : transportNamed(transport).requires ? 'its target is another process' : 'calls no service'})`), window.errors === 0 && load.status.non2xx === 0, `${window.errors + load.status.non2xx} errors`)
    else if (kind.disruptive) check(t('saw the fault (some 502/504)'), window.errors + load.status.non2xx > 0, 'no error at all: the fault did not bite')
  })

  return {
    failures: checks.filter((c) => !c.ok).map((c) => `${c.name}${c.detail ? ` (${c.detail})` : ''}`),
    fault: { kind: kindName, description: kind.description, service, ...(outside ? { outside } : {}), holdMs, durationS: loadResults[0]?.durationS, connections, ...(fault ? { injectedAtMs: Math.round(fault.injectedAt), backAfterMs: Math.round(fault.backAt - fault.injectedAt) } : {}) },
    transports,
    entryStallMs,
    restarts: { before: restartsBefore, after: restartsAfter },
    checks
  }
}
