// @ts-check
// Reads a V8 .cpuprofile: self time inside a time window, by category and by
// function. Timestamps are CLOCK_MONOTONIC µs, the same clock as the harness's
// process.hrtime, so the window is exactly the measured load.

/**
 * @typedef {{ id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }} ProfileNode
 * @typedef {{ nodes: ProfileNode[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }} Profile
 */

/** Ordered: the first rule that matches names the category. */
const RULES = /** @type {[string, (fn: string, url: string) => boolean][]} */ ([
  ['GC', (fn) => fn === '(garbage collector)'],
  ['mesh / MessagePort', (fn, url) => /undici-thread-interceptor|@platformatic\/itc|node:internal\/worker|messageport/.test(url) || /postMessage|receiveMessageOnPort|structuredClone/.test(fn)],
  ['undici (HTTP client)', (_, url) => url.includes('node_modules/undici/')],
  ['node:http server', (_, url) => /node:_http|node:http\b/.test(url)],
  ['TCP sockets (node:net)', (_, url) => /node:net|node:internal\/(net|stream_base_commons|tcp)/.test(url)],
  ['Fastify / light-my-request (mesh inject)', (_, url) => /node_modules\/(fastify|find-my-way|avvio|light-my-request|fast-json-stringify|@fastify)/.test(url)],
  ['Watt runtime glue', (_, url) => /node_modules\/(@platformatic|pino|prom-client|@opentelemetry)/.test(url)],
  ['this project', (_, url) => url.includes('/web/') || url.includes('/lib/')],
  ['streams & events', (_, url) => /node:(internal\/streams|stream|events|internal\/event_target)/.test(url)],
  ['timers & promises', (_, url) => /node:internal\/(timers|process\/task_queues|promise)/.test(url)],
  ['other Node internals', (_, url) => url.startsWith('node:')],
  ['V8 / native (no JS frame)', (fn, url) => url === '' && fn !== '(idle)' && fn !== '(root)'],
  ['other', () => true]
])

/** @param {ProfileNode['callFrame']} frame */
export function categoryOf ({ functionName, url }) {
  for (const [name, test] of RULES) if (test(functionName, url)) return name
  return 'other'
}

/**
 * @param {Profile | Profile[]} profiles  several: one application's workers, summed
 * @param {{ fromUs: number, toUs: number }} window
 */
export function selfTimeInWindow (profiles, { fromUs, toUs }) {
  /** @type {Record<string, number>} */
  const categories = {}
  /** @type {Map<string, number>} */
  const functions = new Map()
  let busyUs = 0
  let idleUs = 0
  for (const profile of [profiles].flat()) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    let t = profile.startTime
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i]
      // a sample's weight is the time until the next one
      const weight = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0
      if (t < fromUs || t > toUs || weight <= 0) continue
      const node = byId.get(profile.samples[i])
      if (!node) continue
      const frame = node.callFrame
      if (frame.functionName === '(idle)' || frame.functionName === '(root)') { idleUs += weight; continue }
      busyUs += weight
      const category = categoryOf(frame)
      categories[category] = (categories[category] ?? 0) + weight
      const key = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`
      functions.set(key, (functions.get(key) ?? 0) + weight)
    }
  }
  const top = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([name, us]) => ({ name, us }))
  return { busyUs, idleUs, categories, top }
}

/** @param {string} url */
function shortUrl (url) {
  const i = url.lastIndexOf('node_modules/')
  if (i >= 0) return url.slice(i + 'node_modules/'.length)
  return url.replace(/^file:\/\/.*?\/(web|lib|bench)\//, '$1/')
}
