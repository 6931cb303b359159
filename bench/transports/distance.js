// @ts-check
// The report section that places every transport on one line, from the
// in-process floor to another host: throughput per profile on one chart, CPU per
// call split into the entry's, the services' (Watt threads, or the service
// processes' own CPU from /proc) and, apart, the delay relay's and the
// container engine's.
import { TRANSPORTS } from '../../lib/topology.js'
import { barChart } from '../lib/report.js'
import { fmt, medianOf } from '../lib/format.js'

/**
 * How far a call travels: 0 none, 1 another thread, 2 a socket to the same
 * process, 3 another process, 4 another process in a container, 5 another host.
 * @param {string} name
 */
export function distanceOf (name) {
  const record = TRANSPORTS.find((t) => t.name === name)
  if (record?.requires === 'remote-host') return 5
  if (record?.requires === 'containers') return 4
  if (record?.requires === 'service-processes') return 3
  if (name === 'direct' || record?.crossesThreads === false) return 0
  if (name === 'tcp') return 2
  return 1
}

const WHERE = ['in the entry (no call)', 'another thread of the runtime', 'the same runtime, over a loopback socket', 'another process on this machine', 'a Docker container on this machine, through its published port', 'another host (here: a network namespace, unless --service-host)']

/**
 * @param {any} result
 * @returns {any | null} a report section, or null with fewer than two transports
 */
export function distanceSection (result) {
  const { runs, summary, config } = result
  const profiles = Object.keys(summary)
  const targets = [...new Set(runs.map((/** @type {any} */ r) => r.target))].sort((a, b) => distanceOf(a) - distanceOf(b))
  if (targets.length < 2) return null
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ target) => runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
  const cpu = (/** @type {string} */ profile, /** @type {string} */ target, /** @type {string} */ part) => medianOf(okRuns(profile, target), (r) => r.resources?.cpuMicrosPerCall?.[part])
  const about = config.outside?.about ?? {}
  const remote = about['tcp-remote']
  const rttLine = remote
    ? remote.emulation === 'relay'
      ? `tcp-remote: ${remote.placement}; the round trip (${[...new Set(runs.filter((/** @type {any} */ r) => r.target === 'tcp-remote').map((/** @type {any} */ r) => r.rttMs))].join(', ')} ms) is emulated by a **delay relay** in the namespace (the kernel has no netem), holding each chunk half the RTT each way. The relay's CPU is shown apart and is not in the total: it stands in for the network.`
      : remote.emulation === 'netem'
        ? `tcp-remote: ${remote.placement}; the round trip (${remote.rttMs} ms) is emulated by **netem** on both veth ends.`
        : `tcp-remote: ${remote.placement}; a real network, no emulation; the service processes' CPU there is not measured.`
    : ''
  const container = about['tcp-container']
  const containerLine = container
    ? `tcp-container: ${container.placement}; the traffic's path: ${container.path}. The engine's own CPU (docker-proxy, containerd-shim, from /proc) is shown apart and is not in the total; the kernel's part of the path (NAT, veth, bridge) is in no column.`
    : ''
  const headers = ['transport', 'where the services run', ...profiles.flatMap((p) => [`${p} req/s`, `${p} p99 ms`]), ...profiles.flatMap((p) => [`${p} CPU µs/call: entry`, 'services', 'relay (apart)', 'engine (apart)'])]
  const rows = targets.map((target) => [
    target,
    WHERE[distanceOf(target)],
    ...profiles.flatMap((p) => {
      const entry = summary[p]?.[target]
      if (!entry) return ['–', '–']
      if (entry.failed) return ['FAILED', entry.failures.join('; ')]
      return [fmt(entry.requestsPerSec.median), String(entry.latencyP99Ms.median)]
    }),
    ...profiles.flatMap((p) => [cpu(p, target, 'entry'), cpu(p, target, 'services'), cpu(p, target, 'relay'), cpu(p, target, 'engine')].map((v) => (v == null ? '–' : v.toFixed(0))))
  ])
  const first = profiles[0]
  return {
    title: 'From the in-process floor to another host',
    text: `Every transport on one line, ordered by how far a call travels: ${WHERE.join(' → ')}. CPU µs per downstream call: "entry" is tsfastify's thread; "services" is who answered, the four Watt service threads (thread_cpu_seconds_total) or, for the transports whose services run outside the runtime, the service processes' own CPU read from /proc (10 ms ticks).${rttLine ? ` ${rttLine}` : ''}${containerLine ? ` ${containerLine}` : ''}`,
    table: { headers, rows },
    charts: [
      barChart({
        title: 'Requests/s, from the in-process floor to another host',
        categories: targets,
        series: profiles.map((p) => ({ name: p, values: targets.map((t) => (summary[p]?.[t] && !summary[p][t].failed ? summary[p][t].requestsPerSec.median : null)) })),
        unit: 'req/s',
        log: true
      }),
      barChart({
        title: `CPU µs per downstream call (${first})`,
        categories: targets,
        series: [['entry', 'entry'], ['services', 'services'], ['relay (network stand-in)', 'relay'], ['container engine', 'engine']].map(([name, part]) => ({ name, values: targets.map((t) => cpu(first, t, part)) })),
        unit: 'µs',
        stacked: true
      })
    ]
  }
}
