// @ts-check
// The README's results block, written from result files only: the machine and
// settings line, the table (a column group per load profile, a row per
// transport measured, fastest first, "× tcp" only when tcp was measured), the
// wrk line and "What the numbers say": people's sentences, every figure filled
// from the transports result and, when given, the CPU profile result. A
// sentence whose transports were not measured is left out. Same input, same bytes.
import { BASELINE_TRANSPORT } from '../../lib/topology.js'
import { fixed, fmt, medianOf, roundsOrder, times as x, warmupPhrase } from '../../bench/lib/format.js'

const ENTRY = 'tsfastify'
const TCP = BASELINE_TRANSPORT

/** @param {(number | null)[]} values  "a–b×", or "a×" when they agree to two decimals */
const xRange = (values) => {
  const known = /** @type {number[]} */ (values.filter((v) => v != null))
  if (!known.length) return '–'
  const [lo, hi] = [Math.min(...known).toFixed(2), Math.max(...known).toFixed(2)]
  return lo === hi ? `${lo}×` : `${lo}–${hi}×`
}
/** @param {(number | null)[]} values */
const usRange = (values) => {
  const known = /** @type {number[]} */ (values.filter((v) => v != null))
  if (!known.length) return '–'
  const [lo, hi] = [fixed(Math.min(...known)), fixed(Math.max(...known))]
  return lo === hi ? lo : `${lo}–${hi}`
}

/**
 * @param {any} result  a transports result (npm run bench)
 */
function view (result) {
  const ran = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.profile))])
  // the low-concurrency profile first: it is the one the CPU column and the sentences use
  const lowProfile = ran.includes('latency') ? 'latency' : ran[0]
  const profiles = [lowProfile, ...ran.filter((p) => p !== lowProfile)]
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ t) => result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === t && r.ok)
  const entry = (/** @type {string} */ profile, /** @type {string} */ t) => result.summary[profile]?.[t]
  const has = (/** @type {string} */ profile, /** @type {string} */ t) => Boolean(entry(profile, t) && !entry(profile, t).failed)
  const first = (/** @type {string} */ profile) => result.runs.find((/** @type {any} */ r) => r.profile === profile)
  const med = (/** @type {string} */ profile, /** @type {string} */ t, /** @type {(r: any) => number | null | undefined} */ pick) => medianOf(okRuns(profile, t), pick)
  const ratio = (/** @type {string} */ profile, /** @type {string} */ t) => entry(profile, t)?.[`ratioTo_${TCP}`]?.median ?? null
  const rps = (/** @type {string} */ profile, /** @type {string} */ t) => has(profile, t) ? entry(profile, t).requestsPerSec.median : null
  // older results name the services' share 'downstream'
  const cpu = (/** @type {string} */ profile, /** @type {string} */ t, /** @type {'total' | 'entry' | 'services' | 'relay' | 'engine'} */ part = 'total') =>
    med(profile, t, (r) => r.resources?.cpuMicrosPerCall?.[part] ?? (part === 'services' ? r.resources?.cpuMicrosPerCall?.downstream : undefined))
  const tcpMeasured = profiles.some((p) => Object.keys(result.summary[p] ?? {}).some((t) => ratio(p, t) != null))
  // fastest first at low concurrency; failed ones last, in the order they ran
  const targets = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.target))])
  const transports = [...targets].sort((a, b) => (rps(lowProfile, b) ?? -1) - (rps(lowProfile, a) ?? -1))
  return { profiles, transports, okRuns, entry, has, first, med, ratio, rps, cpu, lowProfile, tcpMeasured }
}

/**
 * Where the transports outside the runtime ran, from what the bench recorded.
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function outsideLine (result, v) {
  const about = result.config.outside?.about ?? {}
  const parts = []
  if (about['tcp-process'] && v.transports.includes('tcp-process')) parts.push(`\`tcp-process\`'s services ran as ${about['tcp-process'].placement}.`)
  const remote = about['tcp-remote']
  if (remote && v.transports.includes('tcp-remote')) {
    const rtts = [...new Set(result.runs.filter((/** @type {any} */ r) => r.target === 'tcp-remote').map((/** @type {any} */ r) => r.rttMs))]
    const relay = v.profiles.map((p) => v.cpu(p, 'tcp-remote', 'relay'))
    parts.push(`\`tcp-remote\` ran in a ${remote.placement}${remote.emulation
      ? ` with a ${rtts.join(', ')} ms RTT emulated by ${remote.emulation === 'relay' ? 'the delay relay (this kernel has no netem)' : remote.emulation}${remote.emulation === 'relay' ? `; the relay's CPU (${usRange(relay)} µs per call) is not in the figures` : ''}.`
      : ' over a real network.'}`)
  }
  const container = about['tcp-container']
  if (container && v.transports.includes('tcp-container')) {
    const engine = v.profiles.map((p) => v.cpu(p, 'tcp-container', 'engine'))
    parts.push(`\`tcp-container\`'s services ran each in ${container.placement.replace(/^a Docker container per service/, 'its own Docker container')}; the traffic's path: ${container.path.replace(/ → bridge watt-lab-\S+ → /, ' → the run\'s bridge network → ')}; the engine's own CPU (docker-proxy, containerd-shim: ${usRange(engine)} µs per call) is not in the figures.`)
  }
  // mesh-port ran in a runtime of its own (results before it have no such record)
  const own = about['mesh-port']
  if (own?.config && v.transports.includes('mesh-port')) parts.push(`\`mesh-port\` ran in a second runtime started from \`${own.baseConfig ?? own.config}\` (its CPU figures are that runtime's); the others in the plain runtime.`)
  if ((result.config.workers ?? 1) > 1) parts.push(`Every downstream service ran ${result.config.workers} workers (the entry one).`)
  for (const skipped of result.config.outside?.skipped ?? []) parts.push(`Not run: ${skipped.reason}.`)
  return parts.join(' ')
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
  const minutes = result.finishedAt ? (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 60_000 : null
  const lines = [
    `${cpuName}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os.split(' ')[0]} ${machine.os.split(' ').at(-1)}, Node ${node}${runtime ? ' (the runtime\'s)' : ''}, wattpm ${versions.wattpm}, undici ${versions.undici}, fastify ${versions.fastify}, autocannon ${versions.autocannon}; measured ${result.startedAt.slice(0, 10)}${minutes ? ` (${Math.floor(minutes)} min ${Math.round((minutes % 1) * 60)} s)` : ''}.`,
    `Fan-out of ${v.first(v.profiles[0]).fanout} calls of ${v.first(v.profiles[0]).size} B each${inFlight ? `, at most ${inFlight} calls in flight per service on every transport that crosses threads` : ''}${runtime?.env?.CALL_TIMEOUT_MS ? `, a ${runtime.env.CALL_TIMEOUT_MS} ms deadline per call` : ''}${runtime ? '' : ' (this result predates the runtime-settings record: the settings are the defaults of lib/topology.js at its commit)'}.`,
    `Medians of ${config.rounds} round(s) of ${config.duration} s, each after a ${warmupPhrase(config)} and a settle; ${roundsOrder(runs)}; min–max across rounds${v.tcpMeasured ? `, ratios per round against \`${TCP}\`` : ''}.`,
    runtime?.nodeFlags ? `Every runtime and service process the bench started ran with Node flags [${runtime.nodeFlags.join(' ')}] (bench/lib/node-flags.js: a target left idle between its runs is not measured regrowing a heap V8 shrank).` : '',
    failed.length
      ? `**${failed.length} of ${runs.length} runs FAILED** (shown as FAILED, never as numbers).`
      : `All ${runs.length} runs verified: zero non-2xx, errors, timeouts or body mismatches.`,
    outsideLine(result, v),
    loadgen.length ? `The load generator shares the cores (${Math.min(...loadgen).toFixed(0)}–${Math.max(...loadgen).toFixed(0)}% of one core, more for faster transports).` : '',
    `Source: \`${result.source}\` (${result.suite}, started ${result.startedAt}, commit ${machine.git.commit?.slice(0, 10) ?? 'unknown'}${machine.git.dirty ? ' with local changes' : ''}).`
  ]
  return lines.filter(Boolean).join(' ')
}

/**
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function table (result, v) {
  const headers = ['transport']
  for (const p of v.profiles) {
    const f = v.first(p)
    headers.push(`\`${p}\` (c ${f.connections}, p ${f.pipelining}) req/s`, ...(v.tcpMeasured ? [`× ${TCP}`] : []), 'p99 ms')
  }
  headers.push(`CPU µs per downstream call (${v.lowProfile}): entry + services`)
  const rows = v.transports.map((t) => {
    const rtts = [...new Set(result.runs.filter((/** @type {any} */ r) => r.target === t && r.rttMs !== undefined).map((/** @type {any} */ r) => r.rttMs))]
    const cells = [`\`${t}\`${rtts.length ? ` (${rtts.join(', ')} ms)` : ''}`]
    for (const p of v.profiles) {
      const e = v.entry(p, t)
      if (!e || e.failed) {
        cells.push(e ? 'FAILED' : 'not run', ...(v.tcpMeasured ? [''] : []), '')
        continue
      }
      cells.push(`${fmt(e.requestsPerSec.median)} (${fmt(e.requestsPerSec.min)}–${fmt(e.requestsPerSec.max)})`,
        ...(v.tcpMeasured ? [x(v.ratio(p, t))] : []),
        fixed(v.med(p, t, (r) => r.latencyMs?.p99)))
    }
    const missing = v.okRuns(v.lowProfile, t).filter((/** @type {any} */ r) => !r.resources).length
    const entryPart = v.cpu(v.lowProfile, t, 'entry')
    cells.push(missing ? `missing (${missing} runs)` : entryPart == null ? '–' : `${fixed(entryPart)} + ${fixed(v.cpu(v.lowProfile, t, 'services'))}`)
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
  if (wrk.skipped) return `No wrk figures: ${wrk.skipped}.`
  const runs = wrk.runs.filter((/** @type {any} */ w) => w.profile === v.lowProfile)
  const diffs = runs.filter((/** @type {any} */ w) => w.ok && v.rps(v.lowProfile, w.target)).map((/** @type {any} */ w) => Math.abs(w.requestsPerSec / /** @type {number} */ (v.rps(v.lowProfile, w.target)) - 1))
  const list = runs.map((/** @type {any} */ w) => `${w.target} ${w.ok ? fmt(w.requestsPerSec) : 'FAILED'}`).join(', ')
  // one 10 s run each, after the rounds: a spread, not a verdict of agreement
  return `wrk (\`-t2\`, no pipelining, statuses only; one 10 s run per transport after the rounds) for the \`${v.lowProfile}\` profile: ${list} req/s${diffs.length ? `, within ${Math.ceil(Math.max(...diffs) * 100)}% of autocannon's medians` : ''}.`
}

/**
 * What the numbers say about the transports this lab added beside Watt's own:
 * the channel library, http-port, and calls leaving the runtime.
 * @param {ReturnType<typeof view>} v
 * @returns {string[]}
 */
function beyondWatt (v) {
  const p = v.lowProfile
  const seed = v.profiles.includes('seed') && p !== 'seed' ? 'seed' : null
  const all = (/** @type {string[]} */ names) => names.every((t) => v.has(p, t))
  const connections = (/** @type {string} */ profile) => v.first(profile).connections
  const bullets = []
  const channel = ['port', 'shm'].filter((t) => v.has(p, t))
  if (channel.length && v.has(p, TCP)) {
    const low = channel.map((t) => v.ratio(p, t))
    const high = seed ? channel.map((t) => v.ratio(seed, t)) : []
    const grows = seed && Math.min(...(high.filter((r) => r != null))) > Math.max(...(low.filter((r) => r != null)))
    const names = channel.map((t) => `\`${t}\``).join(' and ')
    const vsRpc = v.has(p, 'rpc') ? `, ${xRange(channel.map((t) => ratioOf(v, p, t, 'rpc')))} \`rpc\`` : ''
    const cpuOthers = [TCP, 'rpc'].filter((t) => v.has(p, t)).map((t) => `\`${t}\`'s ${fixed(v.cpu(p, t))}`).join(' and ')
    bullets.push(`**A dedicated channel between threads: ${names} ${channel.length > 1 ? 'serve' : 'serves'} ${xRange(low)} \`${TCP}\` at c ${connections(p)}${seed ? ` and ${xRange(high)} at c ${connections(seed)}` : ''}${vsRpc}, at ${usRange(channel.map((t) => v.cpu(p, t)))} µs of CPU per call against ${cpuOthers}.** ` +
      `${grows ? 'The gain grows with concurrency because every call made in one event-loop turn travels in one message (`port`: one MessagePort per service; `shm`: SharedArrayBuffer rings). ' : ''}` +
      'They are the `@watt-lab/channel` library (`packages/channel`), usable in any Watt app.')
  }
  if (all(['http-port', TCP])) {
    const vsIpc = v.has(p, 'ipc') ? ` and ${x(ratioOf(v, p, 'http-port', 'ipc'))} \`ipc\`` : ''
    bullets.push(`**\`http-port\` is the mesh without the emulation:** the same \`http.Server\`, parsers and bytes as \`${TCP}\`, over a MessagePort; ${xRange([v.ratio(p, 'http-port'), ...(seed ? [v.ratio(seed, 'http-port')] : [])])} \`${TCP}\`${vsIpc}, at ${x(cpuRatio(v, p, 'http-port', TCP))} \`${TCP}\`'s CPU per call.`)
  }
  if (all(['mesh-port', 'ipc'])) {
    const vsHttpPort = v.has(p, 'http-port') ? ` and ${x(ratioOf(v, p, 'mesh-port', 'http-port'))} \`http-port\`` : ''
    bullets.push(`**\`mesh-port\` is \`ipc\`'s code with one entry in the runtime's config** (the \`@watt-lab/channel/mesh-port\` drop-in in \`undici.interceptors\`, measured in a runtime of its own): ${x(ratioOf(v, p, 'mesh-port', 'ipc'))} \`ipc\`${vsHttpPort}, at ${x(cpuRatio(v, p, 'mesh-port', 'ipc'))} \`ipc\`'s CPU per call.`)
  }
  if (all(['tcp-process', TCP])) {
    const r = [v.ratio(p, 'tcp-process'), ...(seed ? [v.ratio(seed, 'tcp-process')] : [])]
    const known = /** @type {number[]} */ (r.filter((n) => n != null))
    // both ways at once (slower at one concurrency, faster at the other) is neither verdict
    const verdict = Math.min(...known) >= 1
      ? 'are not slower than the runtime\'s own loopback here'
      : Math.max(...known) < 1 ? 'cost throughput against the runtime\'s own loopback' : 'are about as fast as the runtime\'s own loopback here'
    let text = `**Separate processes ${verdict}** (\`tcp-process\` ${x(r[0])} \`${TCP}\` at c ${connections(p)}${seed ? `, ${x(r[1])} at c ${connections(seed)}` : ''}, at ${x(cpuRatio(v, p, 'tcp-process', TCP))} its CPU per call).`
    if (v.has(p, 'tcp-remote')) {
      const remote = [v.ratio(p, 'tcp-remote'), ...(seed ? [v.ratio(seed, 'tcp-remote')] : [])]
      text += ` Another host (\`tcp-remote\`) costs ${xRange(remote)} \`${TCP}\`${v.has(p, 'ipc') ? `, and serves ${x(ratioOf(v, p, 'tcp-remote', 'ipc'))} the mesh` : ''}.`
    }
    bullets.push(text)
  }
  return bullets
}

/**
 * Throughput of `a` over `b` in one profile (medians).
 * @param {ReturnType<typeof view>} v @param {string} p @param {string} a @param {string} b
 */
function ratioOf (v, p, a, b) {
  const ra = v.rps(p, a); const rb = v.rps(p, b)
  return ra != null && rb ? ra / rb : null
}

/**
 * CPU per call of `a` over `b` in one profile (medians).
 * @param {ReturnType<typeof view>} v @param {string} p @param {string} a @param {string} b
 */
function cpuRatio (v, p, a, b) {
  const ca = v.cpu(p, a); const cb = v.cpu(p, b)
  return ca != null && cb != null && cb > 0 ? ca / cb : null
}

/**
 * Why, from the CPU profiles: where each transport's µs per call go.
 * @param {any} profile  a bench:profile result
 */
function profileFindings (profile) {
  const threads = (/** @type {string} */ t) => profile.runs.find((/** @type {any} */ r) => r.target === t && r.ok)?.cpuProfile?.threads
  const all = (/** @type {string} */ t) => { const th = threads(t); return th ? Object.values(th).reduce((sum, /** @type {any} */ thread) => sum + thread.busyUsPerCall, 0) : null }
  const cat = (/** @type {string} */ t, /** @type {string} */ app, /** @type {string} */ c) => threads(t)?.[app]?.categoriesUsPerCall?.[c] ?? null
  const downstreamRange = (/** @type {string} */ t) => {
    const th = threads(t)
    if (!th) return '–'
    return usRange(Object.entries(th).filter(([app]) => app !== ENTRY).map(([, thread]) => /** @type {any} */ (thread).busyUsPerCall))
  }
  const measured = profile.runs.filter((/** @type {any} */ r) => r.ok).map((/** @type {any} */ r) => r.target)
    .sort((/** @type {string} */ a, /** @type {string} */ b) => /** @type {number} */ (all(a)) - /** @type {number} */ (all(b)))
  const totals = measured.map((/** @type {string} */ t) => `~${fixed(all(t))} µs for \`${t}\``).join(', ')
  const c = profile.config
  let text = `**Why: the CPU profiles** (\`npm run bench:profile\`, V8 profiler in every worker thread of the runtime, µs per downstream call, c ${c.connections}, profiler on; \`${profile.source}\`): ${totals} over all threads (service processes outside the runtime are not profiled).`
  const port = 'mesh / MessagePort'
  if (measured.includes('ipc')) {
    text += ` In the entry thread \`ipc\` spends ~${fixed(cat('ipc', ENTRY, port))} µs per call in the mesh and MessagePort code (structured clone of requests and responses), ~${fixed(cat('ipc', ENTRY, 'V8 / native (no JS frame)'))} µs in native code outside any JS frame and ~${fixed(cat('ipc', ENTRY, 'GC'))} µs in GC.`
    if (measured.includes(TCP)) text += ` Each downstream thread spends ~${downstreamRange('ipc')} µs per mesh call against ~${downstreamRange(TCP)} µs per real TCP request: Node's HTTP parser on a real socket is cheaper than emulating one.`
  }
  if (measured.includes('rpc') && measured.includes('ipc')) {
    text += ` \`rpc\`'s entry spends ~${fixed(cat('rpc', ENTRY, port))} µs per call in MessagePort code against \`ipc\`'s ~${fixed(cat('ipc', ENTRY, port))}: the mesh's cost is the HTTP emulation around the messages, not the MessagePort itself.`
  }
  const channel = ['port', 'shm'].filter((t) => measured.includes(t))
  if (channel.length) {
    const floor = measured.includes('direct') ? threads('direct')?.[ENTRY]?.busyUsPerCall : null
    const entryUs = (/** @type {string} */ t) => threads(t)?.[ENTRY]?.busyUsPerCall
    text += ` ${channel.map((t) => `\`${t}\`'s entry spends ~${fixed(entryUs(t))} µs per call${floor != null ? ` (~${fixed(/** @type {number} */ (entryUs(t)) - floor)} more than \`direct\`'s ~${fixed(floor)} with no call at all)` : ''}, ~${fixed(cat(t, ENTRY, port))} µs of it in MessagePort code`).join('; ')}; each service thread spends ${usRange(Object.entries(threads(channel[0]) ?? {}).filter(([app]) => app !== ENTRY).map(([, thread]) => /** @type {any} */ (thread).busyUsPerCall))} µs per \`${channel[0]}\` call.`
  }
  return text
}

/**
 * What the numbers say: human sentences, every figure from the data.
 * @param {any} result
 * @param {any | null} profile  a bench:profile result, or null
 * @param {ReturnType<typeof view>} v
 */
function findings (result, profile, v) {
  const p = v.lowProfile
  const has = (/** @type {string} */ t) => v.has(p, t)
  const bullets = beyondWatt(v)
  if (has('ipc') && has(TCP)) {
    bullets.push(`**The mesh (\`ipc\`) against a fair loopback TCP baseline: ${x(v.ratio(p, 'ipc'))} \`${TCP}\`'s throughput at ${x(cpuRatio(v, p, 'ipc', TCP))} its CPU per call** (\`${p}\` profile${v.profiles.includes('seed') && p !== 'seed' ? `; ${x(v.ratio('seed', 'ipc'))} under \`seed\`` : ''}). The older write-up's "IPC 4.4× faster than TCP" came from a TCP route that went back through the runtime's entrypoint; with the same worker, the same listener and a sized keep-alive pool on both sides, the order is as measured here.`)
  }
  if (profile) bullets.push(profileFindings(profile))
  if (has('rpc') && has(TCP)) {
    bullets.push(`**\`rpc\`, Watt's messaging: ${x(v.ratio(p, 'rpc'))} \`${TCP}\` at low concurrency${v.profiles.includes('seed') && p !== 'seed' ? ` (${x(v.ratio('seed', 'rpc'))} under \`seed\`)` : ''}, ${x(cpuRatio(v, p, 'rpc', TCP))} its CPU per call.** One structured-clone message each way over a persistent MessagePort, no HTTP on either side.`)
  }
  const elu = (/** @type {string} */ app) => v.transports.filter(has).map((t) => v.med(p, t, (r) => r.resources?.apps?.[app]?.elu)).filter((e) => e != null)
  const entryElu = elu(ENTRY)
  const apps = Object.keys(v.okRuns(p, v.transports.find(has) ?? '')[0]?.resources?.apps ?? {}).filter((a) => a !== ENTRY)
  const serviceElu = apps.flatMap((a) => elu(a))
  if (entryElu.length && serviceElu.length) {
    bullets.push(`**The entry is the bottleneck for every transport.** Its event loop is at ${Math.min(...entryElu).toFixed(2)}–${Math.max(...entryElu).toFixed(2)} utilisation (\`${p}\`, medians per transport) while the ${apps.length} services in the runtime sit at ${Math.min(...serviceElu).toFixed(2)}–${Math.max(...serviceElu).toFixed(2)}. Fan-out multiplies the caller's work; the callee's share is small.`)
  }
  if (has('direct')) {
    const us = v.cpu(p, 'direct')
    const fanout = v.first(p).fanout
    bullets.push(`**\`direct\` is the floor of this entry, not of Node:** ${fixed(us)} µs per call (≈ ${fixed(us == null ? null : us * fanout)} µs per request of ${fanout} calls${has(TCP) ? `, ${x(v.ratio(p, 'direct'))} \`${TCP}\`` : ''}) is Fastify, schema validation and serialisation, the deadline, verification and Watt's per-request hooks. Everything above it is the transport.`)
  }
  if (v.profiles.includes('seed')) {
    // tcp listed with the rest: whether it degrades more evenly than the others differs from run to run
    const seedTail = v.transports.filter((t) => t !== 'direct' && v.has('seed', t))
      .map((t) => `\`${t}\` p50 ${fixed(v.med('seed', t, (r) => r.latencyMs?.p50))} / p99 ${fixed(v.med('seed', t, (r) => r.latencyMs?.p99))} ms`)
    bullets.push(`**Overload shows at the start of a load.** A burst of ${v.first('seed').connections} new connections into a saturated entry is admitted one per event-loop turn (see "Bound the calls in flight" in docs/transports-and-fairness.md), so the last connections wait for their first answer: ${seedTail.join(', ')} under \`seed\`.`)
  }
  bullets.push(advice(v))
  return bullets.map((b) => `- ${b}`).join('\n')
}

/**
 * The advice follows the measured order; without the transports it compares, it
 * says only what always holds.
 * @param {ReturnType<typeof view>} v
 */
function advice (v) {
  const p = v.lowProfile
  const faster = (/** @type {string} */ a, /** @type {string} */ b) => v.has(p, a) && v.has(p, b) && /** @type {number} */ (v.rps(p, a)) > /** @type {number} */ (v.rps(p, b))
  const parts = []
  const channel = ['shm', 'port'].filter((t) => faster(t, 'rpc'))
  if (channel.length) parts.push(`For calls between services of one runtime, the channel library (${channel.map((t) => `\`${t}\``).join(' or ')}) is the fastest way measured short of calling in-process.`)
  if (faster('rpc', TCP) && faster(TCP, 'ipc')) parts.push('With Watt\'s own ways, use `rpc` (messaging) when the call can be shaped as a message.')
  if (faster('http-port', TCP)) parts.push('If you need HTTP semantics, `http-port` keeps them at less cost than loopback TCP.')
  if (faster(TCP, 'ipc')) parts.push('Loopback TCP to the service\'s own port with a sized keep-alive pool is cheaper than the mesh on this version of Watt.')
  parts.push('Whichever you choose, bound the calls in flight per service and set per-call deadlines yourself (a mesh request ignores its `AbortSignal` until headers arrive; messaging takes no signal at all).')
  return `**What to do.** ${parts.join(' ')}`
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
    table(result, v),
    [wrkLine(result, v), 'The full tables, the "from the in-process floor to another host" chart and every run are in `results/report.md` and `results/report.html` after `npm run bench`.'].filter(Boolean).join(' '),
    '### What the numbers say',
    `Written by \`npm run readme\` from \`${result.source}\`${profile ? ` and \`${profile.source}\`` : ''}: the sentences are people's, every figure is the data's.`,
    findings(result, profile, v)
  ]
  return parts.join('\n\n') + '\n'
}
