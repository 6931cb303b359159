// @ts-check
// "Memory consumed" by the serving process during a run: its peak resident set
// size. On Linux the kernel keeps the exact peak (VmHWM) and lets the owner
// reset it (writing 5 to /proc/<pid>/clear_refs), so nothing between two samples
// is missed; elsewhere, pidusage samples every 100 ms.
import { readFileSync, writeFileSync } from 'node:fs'
import pidusage from 'pidusage'

/**
 * Current resident set size, bytes.
 * @param {number} pid
 */
export async function rssOf (pid) {
  const fromProc = procStatusBytes(pid, 'VmRSS')
  return fromProc ?? (await pidusage(pid)).memory
}

/**
 * Starts watching; stop() returns the peak since start.
 * @param {number} pid
 * @param {{ intervalMs?: number }} [options]
 */
export function trackPeakRss (pid, { intervalMs = 100 } = {}) {
  const exact = resetPeak(pid)
  let sampled = 0
  const sample = () => pidusage(pid).then(({ memory }) => { sampled = Math.max(sampled, memory) }, () => {})
  const timer = exact ? null : setInterval(sample, intervalMs)
  if (!exact) sample()
  return {
    /** @returns {Promise<{ peakRssBytes: number, method: 'VmHWM' | 'sampled' }>} */
    async stop () {
      if (timer) clearInterval(timer)
      if (exact) {
        const peak = procStatusBytes(pid, 'VmHWM')
        if (peak !== null) return { peakRssBytes: peak, method: 'VmHWM' }
      }
      await sample()
      pidusage.clear()
      return { peakRssBytes: sampled, method: 'sampled' }
    }
  }
}

/** @param {number} pid */
function resetPeak (pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/**
 * @param {number} pid
 * @param {'VmRSS' | 'VmHWM'} field
 * @returns {number | null}
 */
function procStatusBytes (pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}
