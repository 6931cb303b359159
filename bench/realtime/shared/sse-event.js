// @ts-check
// What one SSE event of the fan-out carries, shared by the feed app (which
// writes it) and the suite's client (which checks it): the sequence number as
// the event's id and in its data, the producer's clock when it was written
// (machineNow(), ms: the same clock in every thread and process of
// this machine), and a padding that the sequence number determines.

/**
 * The clock every stamp and arrival is read on: the machine's monotonic clock
 * (process.hrtime, CLOCK_MONOTONIC on Linux: one clock for every thread and
 * process of the machine), in milliseconds with microsecond resolution.
 * `performance.timeOrigin + performance.now()` is not: each thread takes its
 * origin from the wall clock on its own, and a Watt worker's stamps were seen
 * milliseconds ahead of the harness's (negative lags; D-realtime-clock).
 */
export function machineNow () {
  return Number(process.hrtime.bigint() / 1000n) / 1000
}

/**
 * The padding of event `seq`, `size` characters long (ASCII).
 * @param {number} seq
 * @param {number} size
 */
export function paddingOf (seq, size) {
  const unit = `${seq.toString(36)}.`
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}

/**
 * One event, as written on the wire.
 * @param {number} seq
 * @param {number} stamp  machineNow() when it was due
 * @param {number} size   padding characters
 */
export function eventText (seq, stamp, size) {
  return `id: ${seq}\ndata: ${JSON.stringify({ seq, t: stamp, pad: paddingOf(seq, size) })}\n\n`
}

/**
 * The control events around the data: `start` (publishing begins, with its
 * clock), `end` (how many events were published), `error` (the producer gave up).
 * @param {'start' | 'end' | 'error'} name
 * @param {Record<string, unknown>} data
 */
export function controlEventText (name, data) {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}
