// Watt's telemetry over the drop-in and over the mesh. With the runtime's `telemetry` on (a file
// exporter: fixture/watt.telemetry.json and watt.mesh-port.telemetry.json, which differ only in the
// undici block), calls through the front to plain (node:http, listening) and svc (a
// @platformatic/service that never listens) give the same trace on every path: the front's SERVER
// span, a CLIENT span of the front as its child, and the callee's SERVER span as that CLIENT span's
// child, all in one trace, so the trace context reached the callee. Two runtimes at once: the
// mesh and the drop-in.
//
// The spans come from different code on each path (@platformatic/telemetry 3.65, runtime 3.67).
// Over the mesh, Watt's thread-interceptor hooks (createTelemetryThreadInterceptorHooks, given to
// the mesh's wire() in runtime lib/worker/interceptors.js) make a CLIENT span, put its `traceparent`
// on the call and make the callee's span around the inject; the mesh also publishes the call on
// undici's `undici:request:create`, so OpenTelemetry's undici instrumentation makes a second CLIENT
// span beside it. The drop-in sends the call before the mesh sees it, so those hooks never run;
// but every worker loads OpenTelemetry's undici and http instrumentations (node-telemetry.js, by
// --import), and each drop-in link is an undici Pool: undici's channel gives the one CLIENT
// span and the `traceparent` header, the callee's http.Server 'request' event its SERVER span.
// The test asserts which instrumentation made each span, so a change on either side shows.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { startFixture } from '../helpers/mesh-fixture.js'

const TARGETS = ['plain', 'svc']
/** The configs' telemetry.applicationName: Watt names each application's service `watt-lab-<id>`. */
const SERVICE_PREFIX = 'watt-lab-'
/** OpenTelemetry's SpanKind, by its number in the exported span. */
const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']

/**
 * One line of the file exporter (@platformatic/telemetry lib/file-span-exporter.js).
 * @typedef {object} Span
 * @property {string} traceId
 * @property {string} id
 * @property {{ traceId?: string, spanId?: string }} parentSpanContext
 * @property {string} name
 * @property {number} kind
 * @property {Record<string, unknown>} attributes
 * @property {{ attributes: Record<string, unknown> }} resource
 * @property {{ name: string }} instrumentationScope
 */

/**
 * @param {string} file
 * @returns {Span[]}
 */
function readSpans (file) {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/** @param {Span} span */
const appOf = (span) => String(span.resource.attributes['service.name']).replace(SERVICE_PREFIX, '')
/** @param {Span} span */
const label = (span) => `${appOf(span)} ${KINDS[span.kind] ?? span.kind}`

/**
 * The trace of one call, found by the marker in its query: the front's SERVER span carrying it is
 * the root. `shape`: each span of that trace as "<app> <KIND> < <its parent>" ("(root)" for none,
 * "(parent not exported)" for a parent id no span of the trace has), parents before children;
 * `made`: the same with the instrumentation that made each span and its parent, sorted;
 * `outside`: spans carrying the marker in another trace (a callee that did not get the trace
 * context starts its own).
 * @param {Span[]} spans
 * @param {string} marker
 */
function traceOf (spans, marker) {
  const marked = spans.filter((s) => JSON.stringify(s.attributes).includes(marker))
  const root = marked.find((s) => appOf(s) === 'front' && KINDS[s.kind] === 'SERVER')
  if (!root) return { shape: [], made: [], outside: marked.map(label), marked: marked.length }
  const inTrace = spans.filter((s) => s.traceId === root.traceId)
  const byId = new Map(inTrace.map((s) => [s.id, s]))
  /** @type {(span: Span) => number} */
  const depth = (span) => {
    const parent = byId.get(span.parentSpanContext?.spanId ?? '')
    return parent ? 1 + depth(parent) : 0
  }
  /** @type {(span: Span, what: (span: Span) => string) => string} */
  const line = (span, what) => {
    if (!span.parentSpanContext?.spanId) return `${what(span)} < (root)`
    const parent = byId.get(span.parentSpanContext.spanId)
    return `${what(span)} < ${parent ? what(parent) : '(parent not exported)'}`
  }
  const scoped = (/** @type {Span} */ s) => `${label(s)} [${s.instrumentationScope?.name}]`
  return {
    shape: inTrace
      .map((s) => ({ depth: depth(s), text: line(s, label) }))
      .sort((a, b) => a.depth - b.depth || a.text.localeCompare(b.text))
      .map(({ text }) => text),
    made: inTrace.map((s) => line(s, scoped)).sort(),
    outside: marked.filter((s) => s.traceId !== root.traceId).map(label),
    marked: marked.length
  }
}

/**
 * One runtime with telemetry on: two calls to each target (the first one waits for the
 * drop-in's handshake), the spans they left, and what the drop-in says it did.
 * @param {import('tap').Test} t
 * @param {string} name
 * @param {'mesh' | 'drop-in'} mode
 * @param {string} config
 * @param {Record<string, unknown>} [dropIn]  the drop-in's options
 */
async function traced (t, name, mode, config, dropIn) {
  const dir = mkdtempSync(join(tmpdir(), 'watt-lab-telemetry-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'spans.jsonl')
  const fixture = await startFixture(t, mode, { apps: TARGETS, config, dropIn, env: { TELEMETRY_FILE: file } })
  /** @type {Record<string, string[]>} the markers of each target's calls, in order */
  const markers = {}
  for (const target of TARGETS) {
    markers[target] = []
    for (const n of [1, 2]) {
      const marker = `mark${name.replace(/\W/g, '')}${target}${n}`
      const answer = await fixture.call(`http://${target}.plt.local`, `/hello?mark=${marker}`)
      t.equal(answer.status, 200, `${name}: call ${n} to ${target} answers`)
      t.equal(answer.text, `hello ${target}`, `${name}: call ${n} to ${target} reached it`)
      markers[target].push(marker)
    }
  }
  // A span is exported as it ends (a simple processor, a file append). The front's SERVER span
  // ends last, once its answer is sent, after the response came back: wait until every call's
  // is in the file, with two more (on any path) carrying its marker.
  const all = Object.values(markers).flat()
  const exported = (/** @type {Span[]} */ spans) => all.every((m) => {
    const trace = traceOf(spans, m)
    return trace.shape.length > 0 && trace.marked >= 3
  })
  const deadline = Date.now() + 5000
  let spans = readSpans(file)
  while (Date.now() < deadline && !exported(spans)) {
    await sleep(100)
    spans = readSpans(file)
  }
  const stats = await fixture.stats()
  return { markers, spans, stats }
}

const HTTP = '@opentelemetry/instrumentation-http'
const UNDICI = '@opentelemetry/instrumentation-undici'
const PLATFORMATIC = '@platformatic/telemetry'

test('telemetry: a call gives the same trace over the drop-in as over the mesh, trace context propagated', async (t) => {
  const [mesh, http] = await Promise.all([
    traced(t, 'mesh', 'mesh', 'watt.telemetry.json'),
    traced(t, 'drop-in', 'drop-in', 'watt.mesh-port.telemetry.json')
  ])

  // Each run took the path it is named for.
  t.same(Object.keys(mesh.stats), [], 'mesh: no drop-in in the way')
  for (const [name, run] of /** @type {const} */ ([['drop-in', http]])) {
    for (const target of TARGETS) {
      const route = run.stats[target]
      t.equal(route?.path, 'http-port', `${name}: ${target} is reached over http-port`)
      t.equal(route?.meshCalls, 0, `${name}: no call to ${target} went over the mesh`)
      t.equal(route?.workers.reduce((sum, w) => sum + w.calls, 0), 2, `${name}: both calls to ${target} went over http-port`)
    }
  }

  for (const target of TARGETS) {
    // The callee's SERVER span (svc's: a Fastify route's, from @platformatic/telemetry on
    // every path) is a child of a CLIENT span of the front, in the front's trace.
    const trace = ['front SERVER < (root)', 'front CLIENT < front SERVER', `${target} SERVER < front CLIENT`]
    const callee = target === 'svc' ? PLATFORMATIC : HTTP
    for (const i of [0, 1]) {
      const call = `call ${i + 1} to ${target}`
      const overMesh = traceOf(mesh.spans, mesh.markers[target][i])
      // Over the mesh a call has two CLIENT spans, siblings: undici's instrumentation sees the
      // call through the mesh's own `undici:request:create` (undici-thread-interceptor
      // lib/hooks.js), and Watt's hook makes the other, whose traceparent the callee gets.
      t.same(overMesh.shape, [trace[0], trace[1], trace[1], trace[2]], `mesh: ${call}: the callee's SERVER span is a child of a CLIENT span of the front`)
      t.same(overMesh.made, [
        `front CLIENT [${UNDICI}] < front SERVER [${HTTP}]`,
        `front CLIENT [${PLATFORMATIC}] < front SERVER [${HTTP}]`,
        `front SERVER [${HTTP}] < (root)`,
        `${target} SERVER [${PLATFORMATIC}] < front CLIENT [${PLATFORMATIC}]`
      ], `mesh: ${call}: the mesh's hooks make the callee's parent and the callee's span`)
      t.same(overMesh.outside, [], `mesh: ${call}: no span of it starts another trace`)
      for (const [name, run] of /** @type {const} */ ([['drop-in', http]])) {
        const over = traceOf(run.spans, run.markers[target][i])
        t.same(over.shape, trace, `${name}: ${call}: the callee's SERVER span is a child of the front's CLIENT span`)
        t.same([...new Set(over.shape)], [...new Set(overMesh.shape)], `${name}: ${call}: the same spans by application and kind, and links, as over the mesh`)
        t.same(over.made, [
          `front CLIENT [${UNDICI}] < front SERVER [${HTTP}]`,
          `front SERVER [${HTTP}] < (root)`,
          `${target} SERVER [${callee}] < front CLIENT [${UNDICI}]`
        ], `${name}: ${call}: undici's and http's instrumentations make the CLIENT and the callee's spans`)
        t.same(over.outside, [], `${name}: ${call}: no span of it starts another trace`)
      }
    }
  }
})
