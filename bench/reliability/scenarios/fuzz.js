// @ts-check
// Bad input: a seeded pass of generated requests (see fuzz/cases.js) against
// the entry's routes and every downstream's own port, a few at a time, then a
// look at the runtime: still alive, nothing restarted, every route answering.
// In mesh-port's runtime the entry's cases go to its route alone (the others
// run the plain runtime's code, fuzzed there); the services' ports are the
// http.Servers its drop-in hands its links to.
import { ENTRY_ROUTES, generateCases } from '../fuzz/cases.js'
import { judgeAnswer } from '../fuzz/judge.js'
import { sendRaw } from '../fuzz/raw-http.js'
import { isAlive, restartCounts, transportStatuses, waitUntilSettled } from '../health.js'
import { servicePort } from '../private-runtime.js'

/**
 * @param {import('../private-runtime.js').PrivateRuntime} runtime
 * @param {{ requests: number, seed: number, concurrency: number, routes?: readonly string[], onTick?: (s: number) => void }} options
 *   routes: the entry routes fuzzed (default: every route of the plain runtime)
 */
export async function fuzzRoutes (runtime, { requests, seed, concurrency, routes = ENTRY_ROUTES, onTick }) {
  const cases = generateCases({ count: requests, seed, routes })
  await waitUntilSettled(runtime.url)
  const restartsBefore = await restartCounts(runtime.metricsUrl)
  const timeoutMs = runtime.callTimeoutMs + 5000 // a deliberate delay fault answers 504 at the call timeout
  const started = Date.now()
  const ticker = setInterval(() => onTick?.((Date.now() - started) / 1000), 1000)

  /** @type {Record<string, number>} */
  const byStatus = {}
  /** @type {Map<string, { count: number, example: string }>} */
  const problems = new Map()
  let dropped = 0
  let deliberate = 0
  let next = 0
  async function worker () {
    while (next < cases.length) {
      const fuzzCase = cases[next++]
      const port = fuzzCase.surface === 'entry' ? runtime.port : servicePort(runtime.ports, fuzzCase.surface)
      const answer = await sendRaw({ port, bytes: fuzzCase.bytes, timeoutMs, head: fuzzCase.method === 'HEAD' })
      const key = answer.outcome === 'answered' ? String(answer.status) : answer.outcome
      byStatus[key] = (byStatus[key] ?? 0) + 1
      if (answer.outcome === 'closed' || answer.outcome === 'reset') dropped++
      if (fuzzCase.deliberateFault && (answer.status === 502 || answer.status === 504)) deliberate++
      const problem = judgeAnswer(fuzzCase, answer)
      if (problem) {
        // Grouped by where and what, so one bug reads as one line with its count.
        const signature = `${fuzzCase.surface === 'entry' ? 'entry' : `${fuzzCase.surface} port`} · ${fuzzCase.kind} · ${problem}`
        const seen = problems.get(signature) ?? { count: 0, example: `#${fuzzCase.id} ${printable(fuzzCase.bytes)}` }
        seen.count++
        problems.set(signature, seen)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    clearInterval(ticker)
  }

  const failures = [...problems].map(([signature, { count, example }]) => `${count}× ${signature} — e.g. ${example}`)
  if (!isAlive(runtime.pid)) failures.push('the runtime process died')
  const restartsAfter = await restartCounts(runtime.metricsUrl).catch(() => /** @type {Record<string, number>} */ ({}))
  for (const [app, count] of Object.entries(restartsBefore)) {
    if (restartsAfter[app] !== count) failures.push(`${app} restarted during the fuzz pass (${count} → ${restartsAfter[app]}): a crash`)
  }
  const after = await transportStatuses(runtime.url, runtime.routes)
  if (Object.values(after).some((status) => status !== 200)) failures.push(`routes not all answering 200 afterwards: ${JSON.stringify(after)}`)

  const surfaces = Object.fromEntries(['entry', ...new Set(cases.map((c) => c.surface))].map((s) => [s, cases.filter((c) => c.surface === s).length]))
  return {
    failures,
    fuzz: { requests: cases.length, seed, concurrency, routes, statusesAfter: after, seconds: (Date.now() - started) / 1000, surfaces, byStatus, deliberate502or504: deliberate, droppedWithoutAnswer: dropped },
    problems: [...problems].map(([signature, { count, example }]) => ({ signature, count, example }))
  }
}

/**
 * A request's first bytes, readable in a log line.
 * @param {Buffer} bytes
 */
function printable (bytes) {
  return JSON.stringify(bytes.subarray(0, 90).toString('latin1')) + (bytes.length > 90 ? `… (${bytes.length} bytes)` : '')
}
