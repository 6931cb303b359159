// @ts-check
// Runtimes started side by side, one per name (a path, an app's path): all of them or none, as a
// failure stops those that did start, and their common stop and liveness check.

/**
 * @template {{ stop: () => Promise<unknown> }} R
 * @param {string[]} names
 * @param {(name: string, index: number) => Promise<R>} start
 * @returns {Promise<Map<string, R>>}
 */
export async function startAllOrNone (names, start) {
  const started = await Promise.allSettled(names.map((name, i) => start(name, i)))
  /** @type {Map<string, R>} */
  const runtimes = new Map()
  started.forEach((outcome, i) => { if (outcome.status === 'fulfilled') runtimes.set(names[i], outcome.value) })
  const failed = started.find((outcome) => outcome.status === 'rejected')
  if (failed) {
    await stopAll(runtimes)
    throw /** @type {PromiseRejectedResult} */ (failed).reason
  }
  return runtimes
}

/** @param {Map<string, { stop: () => Promise<unknown> }>} runtimes */
export async function stopAll (runtimes) {
  await Promise.all([...runtimes.values()].map((runtime) => runtime.stop()))
  runtimes.clear()
}

/** @param {{ pid: number | null }} runtime  whether its process still runs */
export function isAlive (runtime) {
  try {
    return runtime.pid !== null && process.kill(runtime.pid, 0)
  } catch {
    return false
  }
}
