// @ts-check
// The README's results block, written from result files only: the machine and
// settings line, the table (a column group per load profile, a row per
// transport measured, "× tcp" only when tcp was measured), the wrk line and
// "What the numbers say" with every figure filled from the transports result
// and, when given, the CPU profile result. Same input, same bytes.
import { fmt, medianOf } from '../../bench/lib/format.js'

const ENTRY = 'tsfastify'

/** @param {number | null | undefined} n @param {number} [digits] */
const fixed = (n, digits = 0) => (n == null || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }))
/** @param {number | null | undefined} n */
const x = (n) => (n == null ? '–' : `${n.toFixed(2)}×`)

/**
 * @param {any} result  a transports result (npm run bench)
 */
function view (result) {
  const profiles = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.profile))])
  // registry order as measured: the order the runs were planned in
  const transports = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.target))])
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ t) => result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === t && r.ok)
  const entry = (/** @type {string} */ profile, /** @type {string} */ t) => result.summary[profile]?.[t]
  const tcpMeasured = profiles.some((p) => transports.some((t) => entry(p, t)?.ratioTo_tcp))
  const first = (/** @type {string} */ profile) => result.runs.find((/** @type {any} */ r) => r.profile === profile)
  const med = (/** @type {string} */ profile, /** @type {string} */ t, /** @type {(r: any) => number | null | undefined} */ pick) => medianOf(okRuns(profile, t), pick)
  const ratio = (/** @type {string} */ profile, /** @type {string} */ t) => entry(profile, t)?.ratioTo_tcp?.median ?? null
  const rps = (/** @type {string} */ profile, /** @type {string} */ t) => entry(profile, t)?.requestsPerSec?.median ?? null
  const cpu = (/** @type {string} */ profile, /** @type {string} */ t, /** @type {string} */ part = 'total') => med(profile, t, (r) => r.resources?.cpuMicrosPerCall?.[part])
  const lowProfile = profiles.includes('latency') ? 'latency' : profiles[0]
  return { profiles, transports, okRuns, entry, tcpMeasured, first, med, ratio, rps, cpu, lowProfile }
}

/**
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function headline (result, v) {
  const { machine, config, runtime } = result
  const versions = { ...machine.versions, ...(runtime?.versions?.watt ? { wattpm: runtime.versions.watt } : {}) }
  const node = (runtime?.versions?.node ?? machine.node).replace(/^v/, '')
  const cpuName = machine.cpuModel.split(/\s+/).slice(0, 2).join(' ')
  const inFlight = runtime?.env?.CALLS_IN_FLIGHT_PER_SERVICE
  const runs = result.runs
  const failed = runs.filter((/** @type {any} */ r) => !r.ok)
  const loadgen = runs.filter((/** @type {any} */ r) => r.ok && r.loadgen).map((/** @type {any} */ r) => r.loadgen.cpuPercent)
  const lines = [
    `${cpuName}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os.split(' ')[0]} ${machine.os.split(' ').at(-1)}, Node ${node}${runtime ? ' (the runtime\'s)' : ''}, wattpm ${versions.wattpm}, undici ${versions.undici}, fastify ${versions.fastify}, autocannon ${versions.autocannon}.`,
    `Fan-out of ${v.first(v.profiles[0]).fanout} calls of ${v.first(v.profiles[0]).size} B each${inFlight ? `, at most ${inFlight} calls in flight per service on every transport that crosses threads` : ''}${runtime?.env?.CALL_TIMEOUT_MS ? `, a ${runtime.env.CALL_TIMEOUT_MS} ms deadline per call` : ''}.`,
    `Medians of ${config.rounds} interleaved round(s) of ${config.duration} s (after a ${config.warmup} s warm-up and a settle), min–max across rounds${v.tcpMeasured ? ', ratios per round against `tcp`' : ''}.`,
    failed.length
      ? `**${failed.length} of ${runs.length} runs FAILED** (shown as FAILED, never as numbers).`
      : `All ${runs.length} runs verified: zero non-2xx, errors, timeouts or body mismatches.`,
    loadgen.length ? `The load generator shares the cores (${Math.min(...loadgen).toFixed(0)}–${Math.max(...loadgen).toFixed(0)}% of one core, more for faster transports).` : '',
    `Source: \`${result.source}\` (${result.suite}, started ${result.startedAt}, commit ${machine.git.commit?.slice(0, 10) ?? 'unknown'}${machine.git.dirty ? ' with local changes' : ''}).`
  ]
  return lines.filter(Boolean).join(' ')
}

/**
 * @param {ReturnType<typeof view>} v
 */
function table (v) {
  const headers = ['transport']
  for (const p of v.profiles) {
    const f = v.first(p)
    headers.push(`\`${p}\` (c ${f.connections}, p ${f.pipelining}) req/s`, ...(v.tcpMeasured ? ['× tcp'] : []), 'p50 / p99 ms')
  }
  headers.push(`CPU µs per downstream call (${v.lowProfile})`)
  const rows = v.transports.map((t) => {
    const cells = [`\`${t}\``]
    for (const p of v.profiles) {
      const e = v.entry(p, t)
      if (!e || e.failed) {
        cells.push('FAILED', ...(v.tcpMeasured ? [''] : []), '')
        continue
      }
      cells.push(`${fmt(e.requestsPerSec.median)} (${fmt(e.requestsPerSec.min)}–${fmt(e.requestsPerSec.max)})`,
        ...(v.tcpMeasured ? [x(v.ratio(p, t))] : []),
        `${fixed(v.med(p, t, (r) => r.latencyMs?.p50))} / ${fixed(v.med(p, t, (r) => r.latencyMs?.p99))}`)
    }
    const total = v.cpu(v.lowProfile, t)
    const entryPart = v.cpu(v.lowProfile, t, 'entry')
    const downstream = v.cpu(v.lowProfile, t, 'downstream')
    cells.push(total == null ? 'missing' : downstream != null && downstream >= 1 ? `${fixed(total)} (entry ${fixed(entryPart)}, services ${fixed(downstream)})` : `${fixed(total)} (entry only)`)
    return cells
  })
  return [`| ${headers.join(' | ')} |`, `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

/**
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function wrkLine (result, v) {
  const wrk = result.crossCheck
  if (!wrk) return ''
  if (wrk.skipped) return `No wrk figures: ${wrk.skipped.replace(/^wrk /, '')}.`
  const runs = wrk.runs.filter((/** @type {any} */ w) => w.profile === v.lowProfile)
  const diffs = runs.filter((/** @type {any} */ w) => w.ok && v.rps(v.lowProfile, w.target)).map((/** @type {any} */ w) => Math.abs(w.requestsPerSec / /** @type {number} */ (v.rps(v.lowProfile, w.target)) - 1))
  const list = runs.map((/** @type {any} */ w) => `${w.target} ${w.ok ? fmt(w.requestsPerSec) : 'FAILED'}`).join(', ')
  return `wrk (\`-t2\`, no pipelining, statuses only) ${diffs.length ? `agrees within ${Math.ceil(Math.max(...diffs) * 100)}%` : 'ran'} for the \`${v.lowProfile}\` profile: ${list} req/s.`
}

/**
 * What the numbers say: human sentences, every figure from the data. A bullet
 * whose transports were not measured is left out.
 * @param {any} result
 * @param {any | null} profile  a bench:profile result, or null
 * @param {ReturnType<typeof view>} v
 */
function findings (result, profile, v) {
  const p = v.lowProfile
  const has = (/** @type {string} */ t) => v.transports.includes(t) && v.entry(p, t) && !v.entry(p, t).failed
  const bullets = []
  const cpuRatio = (/** @type {string} */ a, /** @type {string} */ b) => {
    const ca = v.cpu(p, a); const cb = v.cpu(p, b)
    return ca != null && cb != null && cb > 0 ? ca / cb : null
  }
  if (has('ipc') && has('tcp')) {
    bullets.push(`**The mesh (\`ipc\`) against a fair loopback TCP baseline: ${x(v.ratio(p, 'ipc'))} \`tcp\`'s throughput at ${x(cpuRatio('ipc', 'tcp'))} its CPU per call** (\`${p}\` profile; ${x(v.ratio('seed', 'ipc'))} under \`seed\`). The older write-up's "IPC 4.4× faster than TCP" came from a TCP route that went back through the runtime's entrypoint; with the same worker, the same listener and a sized keep-alive pool on both sides, the order is as measured here.`)
  }
  if (profile) {
    const threads = (/** @type {string} */ t) => profile.runs.find((/** @type {any} */ r) => r.target === t && r.ok)?.cpuProfile?.threads
    const all = (/** @type {string} */ t) => { const th = threads(t); return th ? Object.values(th).reduce((sum, /** @type {any} */ thread) => sum + thread.busyUsPerCall, 0) : null }
    const cat = (/** @type {string} */ t, /** @type {string} */ app, /** @type {string} */ c) => threads(t)?.[app]?.categoriesUsPerCall?.[c] ?? null
    const downstreamRange = (/** @type {string} */ t) => {
      const th = threads(t)
      if (!th) return null
      const values = Object.entries(th).filter(([app]) => app !== ENTRY).map(([, thread]) => /** @type {any} */ (thread).busyUsPerCall)
      return `${fixed(Math.min(...values))}–${fixed(Math.max(...values))}`
    }
    const measured = profile.runs.filter((/** @type {any} */ r) => r.ok).map((/** @type {any} */ r) => r.target)
    const totals = measured.map((/** @type {string} */ t) => `~${fixed(all(t))} µs for \`${t}\``).join(', ')
    const c = profile.config
    let text = `**Why: the CPU profiles** (\`npm run bench:profile\`, V8 profiler in every worker, µs per downstream call, c ${c.connections}, profiler on): ${totals} over all threads.`
    if (measured.includes('ipc')) {
      text += ` In the entry thread \`ipc\` spends ~${fixed(cat('ipc', ENTRY, 'mesh / MessagePort'))} µs per call in the mesh and MessagePort code (structured clone of requests and responses), ~${fixed(cat('ipc', ENTRY, 'V8 / native (no JS frame)'))} µs in native code outside any JS frame and ~${fixed(cat('ipc', ENTRY, 'GC'))} µs in GC.`
      if (measured.includes('tcp')) text += ` Each downstream thread spends ~${downstreamRange('ipc')} µs per mesh call against ~${downstreamRange('tcp')} µs per real TCP request: Node's HTTP parser on a real socket is cheaper than emulating one.`
    }
    if (measured.includes('rpc') && measured.includes('ipc')) {
      text += ` \`rpc\`'s entry spends ~${fixed(cat('rpc', ENTRY, 'mesh / MessagePort'))} µs per call in MessagePort code against \`ipc\`'s ~${fixed(cat('ipc', ENTRY, 'mesh / MessagePort'))}: the mesh's cost is the HTTP emulation around the messages, not the MessagePort itself.`
    }
    bullets.push(text)
  }
  if (has('rpc') && has('tcp')) {
    bullets.push(`**\`rpc\` is the cheapest real call: ${x(v.ratio(p, 'rpc'))} \`tcp\` at low concurrency (${x(v.ratio('seed', 'rpc'))} under \`seed\`), ${x(cpuRatio('rpc', 'tcp'))} its CPU per call.** One structured-clone message each way over a persistent MessagePort, no HTTP on either side.`)
  }
  const elu = (/** @type {string} */ app) => v.transports.filter(has).map((t) => v.med(p, t, (r) => r.resources?.apps?.[app]?.elu)).filter((e) => e != null)
  const entryElu = elu(ENTRY)
  const apps = Object.keys(v.okRuns(p, v.transports.find(has) ?? '')[0]?.resources?.apps ?? {}).filter((a) => a !== ENTRY)
  const serviceElu = apps.flatMap((a) => elu(a))
  if (entryElu.length && serviceElu.length) {
    bullets.push(`**The entry is the bottleneck for every transport.** Its event loop is at ${Math.min(...entryElu).toFixed(2)}–${Math.max(...entryElu).toFixed(2)} utilisation (\`${p}\`, medians per transport) while the ${apps.length} services sit at ${Math.min(...serviceElu).toFixed(2)}–${Math.max(...serviceElu).toFixed(2)}. Fan-out multiplies the caller's work; the callee's share is small.`)
  }
  if (has('direct')) {
    const us = v.cpu(p, 'direct')
    const fanout = v.first(p).fanout
    bullets.push(`**\`direct\` is the floor of this entry, not of Node:** ${fixed(us)} µs per call (≈ ${fixed(us == null ? null : us * fanout)} µs per request of ${fanout} calls) is Fastify, schema validation and serialisation, the deadline, verification and Watt's per-request hooks. Everything above it is the transport.`)
  }
  if (v.profiles.includes('seed') && has('tcp')) {
    const seedTail = v.transports.filter((t) => t !== 'tcp' && t !== 'direct' && v.entry('seed', t) && !v.entry('seed', t).failed)
      .map((t) => `\`${t}\`: p50 ${fixed(v.med('seed', t, (r) => r.latencyMs?.p50))} ms, p99 ${fixed(v.med('seed', t, (r) => r.latencyMs?.p99))} ms, max ${fixed(v.med('seed', t, (r) => r.latencyMs?.max))} ms`)
    const tcpP50 = v.med('seed', 'tcp', (r) => r.latencyMs?.p50)
    const tcpP99 = v.med('seed', 'tcp', (r) => r.latencyMs?.p99)
    bullets.push(`**Overload shows at the start of a load.** A burst of ${v.first('seed').connections} new connections into a saturated entry is admitted one per event-loop turn (see the experiments below), so the last connections wait for their first answer: ${seedTail.join('; ')} under \`seed\`. \`tcp\` degrades evenly (p99 ≈ ${tcpP50 ? (/** @type {number} */ (tcpP99) / tcpP50).toFixed(1) : '–'}× p50).`)
  }
  // the advice follows the measured order; without the three transports it says only what always holds
  const ordered = has('rpc') && has('tcp') && has('ipc') && /** @type {number} */ (v.ratio(p, 'rpc')) > 1 && /** @type {number} */ (v.ratio(p, 'ipc')) < 1
  bullets.push(`**What to do.** ${ordered ? 'Use `rpc` (messaging) for calls between services of one runtime when you can shape them as messages. If you need HTTP semantics, loopback TCP to the service\'s own port with a sized keep-alive pool is cheaper than the mesh on this version of Watt. ' : ''}Whichever you choose, bound the calls in flight per service and set per-call deadlines yourself (a mesh request ignores its \`AbortSignal\` until headers arrive; messaging takes no signal at all).`)
  return bullets.map((b) => `- ${b}`).join('\n')
}

/**
 * @param {any} result       transports result, with `source` (the path it was read from)
 * @param {any | null} profile  profile result, with `source`, or null
 */
export function resultsBlock (result, profile = null) {
  const v = view(result)
  const parts = [
    `## Results (${result.machine.cores} cores, measured with \`npm run bench\`)`,
    headline(result, v),
    table(v),
    wrkLine(result, v) + ' The full tables, charts and every run are in `results/report.md` and `results/report.html` after `npm run bench`.',
    '### What the numbers say',
    `Written by \`npm run readme\` from \`${result.source}\`${profile ? ` and \`${profile.source}\`` : ''}: the sentences are people's, every figure is the data's.`,
    findings(result, profile, v)
  ]
  return parts.join('\n\n') + '\n'
}
