// @ts-check
// This thread's "I have gone idle" flag, in shared memory that every peer mux holds (io_uring's NEED_WAKEUP).
// The thread sets it at the end of a turn in which a message came in; the first peer to post after that
// clears it and posts at once, so the thread starts work while the peer goes on; other frames wait. A thread
// whose own event loop is near full wakes no one early: it is the bottleneck, and needs its core (D-wake).
import { performance } from 'node:perf_hooks'

const IDLE = 1
const AWAKE = 0

const flag = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)
const own = new Int32Array(flag)
own[0] = IDLE
let marking = false

function markIdle () {
  marking = false
  Atomics.store(own, 0, IDLE)
}

/** The flag a mux sends its peer once, so that the peer knows when this thread waits for work. */
export function idleFlag () {
  return flag
}

/** A message came in: this thread is at work until its turn ends (checks run after the poll's callbacks). */
export function atWork () {
  if (marking) return
  marking = true
  setImmediate(markIdle)
}

/**
 * Whether the peer thread had gone idle, claimed by this caller alone: the one post that wakes it.
 * @param {Int32Array} peer  the peer's idleFlag()
 */
export function claimWake (peer) {
  return !saturated && Atomics.load(peer, 0) === IDLE && Atomics.exchange(peer, 0, AWAKE) === IDLE
}

/** Event-loop utilization above which this thread counts as saturated (D-wake). */
export const BUSY_ELU = 0.8
const SAMPLE_MS = 20
let saturated = false
let last = performance.eventLoopUtilization()
/** @type {NodeJS.Timeout | null} */
let sampler = null

/** Whether this thread's loop was busier than BUSY_ELU since the last sample; every SAMPLE_MS once watched. */
export function sampleLoad () {
  const now = performance.eventLoopUtilization()
  saturated = performance.eventLoopUtilization(now, last).utilization > BUSY_ELU
  last = now
  return saturated
}

/** Starts the samples (an 'auto' mux does; a thread that has none pays nothing). */
export function watchLoad () {
  if (sampler !== null) return
  last = performance.eventLoopUtilization()
  sampler = setInterval(sampleLoad, SAMPLE_MS).unref()
}
