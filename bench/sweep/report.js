// @ts-check
// Sweep report: per dimension, throughput and p99 per transport as charts and a table.
import { lineChart } from '../lib/report.js'
import { failedBanner, fmt, machineLine } from '../lib/format.js'
import { BASE, DIMENSIONS, RTT_TRANSPORTS, rttBase } from './plan.js'

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function sweepReport (result) {
  const { summary, config } = result
  const sections = []
  for (const dimension of /** @type {(keyof typeof DIMENSIONS)[]} */ (config.dimensions)) {
    const { label, values } = DIMENSIONS[dimension]
    if (!values.some((value) => summary[`${dimension}=${value}`])) continue // not run (e.g. no remote host here)
    // In the rtt sweep only tcp-remote crosses the emulated network: the others were
    // measured once, at the base RTT, and are drawn flat.
    const measuredAt = (/** @type {number} */ value, /** @type {string} */ transport) => dimension === 'rtt' && !RTT_TRANSPORTS.includes(transport) ? rttBase(config.rttMs ?? 0.25) : value
    const at = (/** @type {number} */ value, /** @type {string} */ transport) => summary[`${dimension}=${measuredAt(value, transport)}`]?.[transport]
    const pick = (/** @type {any} */ entry, /** @type {string} */ field) => (entry && !entry.failed ? entry[field].median : null)
    const categories = values.map(String)
    sections.push({
      title: `Varying ${label}`,
      text: `${dimension === 'rtt' ? rttText(config) : ''}Everything else at the base point (${Object.entries(BASE).filter(([k]) => k !== dimension).map(([k, v]) => `${k} ${v}`).join(', ')}${dimension === 'rtt' ? '' : `, tcp-remote at RTT ${config.rttMs ?? 0.25} ms`}). Medians of ${config.rounds} round(s) of ${config.duration} s; FAILED where any round had an error, timeout, mismatch or non-2xx.`,
      table: {
        headers: [dimension, ...config.transports.flatMap((/** @type {string} */ t) => [`${t} req/s`, `${t} p99 ms`])],
        rows: values.map((value) => [value, ...config.transports.flatMap((/** @type {string} */ t) => {
          const entry = at(value, t)
          if (!entry) return ['–', '–']
          if (entry.failed) return ['FAILED', entry.failures.join('; ')]
          return [fmt(entry.requestsPerSec.median), String(entry.latencyP99Ms.median)]
        })])
      },
      charts: [
        lineChart({ title: `Requests/s by ${label}`, xName: dimension, categories, series: config.transports.map((/** @type {string} */ t) => ({ name: t, values: values.map((v) => pick(at(v, t), 'requestsPerSec')) })), unit: 'req/s', log: true }),
        lineChart({ title: `p99 latency by ${label}`, xName: dimension, categories, series: config.transports.map((/** @type {string} */ t) => ({ name: t, values: values.map((v) => pick(at(v, t), 'latencyP99Ms')) })), unit: 'ms' })
      ]
    })
  }
  return {
    title: 'Watt transports: sweeps over payload size, fan-out, connections and network round trip',
    intro: `${failedBanner(result, 'transports')}${machineLine(result)} The load generator shares the cores with the runtime. Throughput axes are logarithmic.`,
    sections
  }
}

/** @param {any} config */
function rttText (config) {
  const remote = config.outside?.about?.['tcp-remote']
  const how = remote?.emulation === 'netem' ? 'netem on both veth ends' : remote?.emulation === 'relay' ? 'a delay relay in the namespace holding each chunk half the RTT each way (the kernel has no netem)' : 'the harness'
  return `tcp-remote's round trip is emulated by ${how}. Only tcp-remote crosses it: the other transports were measured once, at RTT ${rttBase(config.rttMs ?? 0.25)} ms, and are drawn flat for comparison. `
}
