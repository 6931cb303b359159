// @ts-check
// Profile report: µs of CPU per downstream call, by category and application.
import { machineLine } from '../lib/format.js'
import { barChart } from '../lib/report.js'
import { APPLICATIONS } from '../../lib/topology.js'

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function profileReport (result) {
  const runs = result.runs.filter((/** @type {any} */ run) => run.ok && run.cpuProfile)
  // the applications that had the profiler (--apps; every one in results from before it)
  const apps = APPLICATIONS.filter((app) => runs.every((/** @type {any} */ run) => run.cpuProfile.threads[app]))
  const partial = apps.length < APPLICATIONS.length
  const categories = [...new Set(runs.flatMap((/** @type {any} */ run) => apps.flatMap((app) => Object.keys(run.cpuProfile.threads[app].categoriesUsPerCall))))]
  const total = (/** @type {any} */ run, /** @type {string} */ category) => apps.reduce((sum, app) => sum + (run.cpuProfile.threads[app].categoriesUsPerCall[category] ?? 0), 0)
  const sections = [{
    title: partial ? `CPU per downstream call, profiled threads (${apps.join(', ')})` : 'CPU per downstream call, all threads',
    text: `Self time sampled by the V8 profiler (250 µs interval) in each worker thread, only inside the measured ${result.config.duration} s window (${result.config.connections} connections, pipelining ${result.config.pipelining}, fan-out ${result.config.fanout}, ${result.config.size} B), divided by the downstream calls served. The profiler slows everything down a little; compare transports with each other. Failed runs: ${result.runs.filter((/** @type {any} */ r) => !r.ok).map((/** @type {any} */ r) => `${r.target} (${r.failures.join('; ')})`).join(', ') || 'none'}.`,
    table: {
      headers: ['category', ...runs.map((/** @type {any} */ r) => `${r.target} µs`)],
      rows: [
        ...categories.map((category) => [category, ...runs.map((/** @type {any} */ r) => total(r, category).toFixed(1))]),
        [partial ? 'total (profiled threads)' : 'total (Watt threads)', ...runs.map((/** @type {any} */ r) => apps.reduce((sum, app) => sum + r.cpuProfile.threads[app].busyUsPerCall, 0).toFixed(1))],
        ['service processes µs, from /proc (not profiled)', ...runs.map((/** @type {any} */ r) => r.cpuProfile.outsideUsPerCall ? r.cpuProfile.outsideUsPerCall.services.toFixed(1) : '–')],
        ['delay relay µs, from /proc (the network stand-in)', ...runs.map((/** @type {any} */ r) => r.cpuProfile.outsideUsPerCall?.relay != null ? r.cpuProfile.outsideUsPerCall.relay.toFixed(1) : '–')],
        ['req/s while profiled', ...runs.map((/** @type {any} */ r) => Math.round(r.requestsPerSec))]
      ]
    },
    charts: [barChart({
      title: `CPU µs per downstream call by category (${partial ? 'profiled' : 'all'} threads)`,
      categories: runs.map((/** @type {any} */ r) => r.target),
      series: categories.map((category) => ({ name: category, values: runs.map((/** @type {any} */ r) => Number(total(r, category).toFixed(1))) })),
      unit: 'µs',
      stacked: true
    })]
  }]
  for (const run of runs) {
    sections.push({
      title: `${run.target}: per application`,
      text: `Busy share of each thread during the window (with several workers, their mean) and µs per downstream call (an application's workers summed).${run.cpuProfile.threads.tsfastify ? ` Heaviest functions of the entry (tsfastify): ${run.cpuProfile.threads.tsfastify.top.slice(0, 6).map((/** @type {any} */ f) => `\`${f.name}\` ${f.usPerCall.toFixed(1)} µs`).join(', ')}.` : ''}`,
      table: {
        headers: ['category', ...apps],
        rows: [
          ...categories.map((category) => [category, ...apps.map((app) => (run.cpuProfile.threads[app].categoriesUsPerCall[category] ?? 0).toFixed(1))]),
          ['total µs per call', ...apps.map((app) => run.cpuProfile.threads[app].busyUsPerCall.toFixed(1))],
          ['thread busy %', ...apps.map((app) => (run.cpuProfile.threads[app].utilisation * 100).toFixed(0))]
        ]
      },
      charts: []
    })
  }
  return {
    title: 'Where the time goes per call: CPU profiles of every Watt worker',
    intro: `${machineLine(result)} Each transport ran in its own fresh runtime with a profiling preload in ${partial ? `the workers of ${apps.join(', ')} only (--apps; the others ran unprofiled)` : 'every worker'} (bench/profile/preload.js); watt.json itself is unchanged.${(result.config.workers ?? 1) > 1 ? ` Every downstream service ran ${result.config.workers} workers (the entry one).` : ''}`,
    sections
  }
}
