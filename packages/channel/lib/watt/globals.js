// @ts-check
// What Watt sets up in each of its worker threads, read here only: `globalThis.platformatic`
// (@platformatic/runtime lib/worker/main.js and itc.js) and the Worker's `workerData`. Every
// read happens at call time: messaging and the ITC exist only once the application starts.
import { workerData as threadWorkerData } from 'node:worker_threads'

/**
 * Watt's per-thread object, or undefined outside Watt.
 * @returns {any}
 */
export function platformatic () {
  return /** @type {any} */ (globalThis).platformatic
}

/**
 * The thread's messaging (send to an application, handle a name); undefined before the start.
 * @param {any} [from]  a platformatic object; this thread's by default
 * @returns {import('../handshake.js').Messaging | undefined}
 */
export function messaging (from = platformatic()) {
  return from?.messaging
}

/**
 * The channel to the runtime's main thread (`send(name, data)`), for ITC calls (itc.js).
 * @param {any} [from]  a platformatic object; this thread's by default
 * @returns {any}
 */
export function itc (from = platformatic()) {
  return from?.itc
}

/**
 * The worker's lifecycle emitter: START_EVENT, STOP_EVENT, EXIT_EVENT.
 * @param {any} [from]  a platformatic object; this thread's by default
 * @returns {import('node:events').EventEmitter | undefined}
 */
export function events (from = platformatic()) {
  return from?.events
}

/** Emitted right before the application starts (messaging is set up by then). */
export const START_EVENT = 'start'
/** Emitted when Watt stops the worker (a restart, a scale-down, the runtime's stop). */
export const STOP_EVENT = 'stop'
/** Emitted right after messaging.close(), as the thread finishes. */
export const EXIT_EVENT = 'exit'

/** The worker's pino logger, named for the application. @returns {any} */
export function logger () {
  return platformatic()?.logger
}

/** The worker's metrics: `{ client, registry }` (prom-client and the registry Watt serves). @returns {any} */
export function prometheus () {
  return platformatic()?.prometheus
}

/** This thread's application id, as messaging knows it. @returns {string | undefined} */
export function applicationId () {
  return platformatic()?.applicationId
}

/**
 * What Watt passed this worker thread (`new Worker(…, { workerData })`), or null outside a worker.
 * @returns {any}
 */
export function workerData () {
  return threadWorkerData
}

/**
 * Every application of the runtime, as configured (`id`, `workers`); undefined outside Watt.
 * @param {any} [data]  a workerData object; this thread's by default
 * @returns {any[] | undefined}
 */
export function configuredApplications (data = threadWorkerData) {
  const applications = data?.config?.applications
  return Array.isArray(applications) ? applications : undefined
}

/**
 * This worker's application id, as configured.
 * @param {any} [data]  a workerData object; this thread's by default
 * @returns {unknown}
 */
export function workerApplicationId (data = threadWorkerData) {
  return data?.applicationConfig?.id
}

/**
 * This worker's index among its application's workers (0 for the first).
 * @param {any} [data]  a workerData object; this thread's by default
 * @returns {unknown}
 */
export function workerIndex (data = threadWorkerData) {
  return data?.worker?.index
}

/**
 * The runtime's root directory, where Watt resolves the interceptors.
 * @param {any} [data]  a workerData object; this thread's by default
 * @returns {unknown}
 */
export function runtimeRoot (data = threadWorkerData) {
  return data?.dirname
}
