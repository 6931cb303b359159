// @ts-check
// Sweep report: per dimension, throughput and p99 per transport as charts and a table.
import { lineChart } from '../lib/report.js'
import { failedBanner, fmt, machineLine } from '../lib/format.js'
import { BASE, DIMENSIONS } from './plan.js'

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function sweepReport (result) {
  const { summary, config } = result
  const sections = []
  for (const dimension of /** @type {(keyof typeof DIMENSIONS)[]} */ (config.dimensions)) {
    const { label, values } = DIMENSIONS[dimension]
    const at = (/** @type {number} */ value, /** @type {string} */ transport) => summary[`${dimension}=${value}`]?.[transport]
    const pick = (/** @type {any} */ entry, /** @type {string} */ field) => (entry && !entry.failed ? entry[field].median : null)
    const categories = values.map(String)
    sections.push({
      title: `Varying ${label}`,
      text: `Everything else at the base point (${Object.entries(BASE).filter(([k]) => k !== dimension).map(([k, v]) => `${k} ${v}`).join(', ')}). Medians of ${config.rounds} round(s) of ${config.duration} s; FAILED where any round had an error, timeout, mismatch or non-2xx.`,
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
    title: 'Watt transports: sweeps over payload size, fan-out and connections',
    intro: `${failedBanner(result, 'transports')}${machineLine(result)} The load generator shares the cores with the runtime. Throughput axes are logarithmic.`,
    sections
  }
}
