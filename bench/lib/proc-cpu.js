// @ts-check
// CPU seconds of a process (all its threads), read from /proc/<pid>/stat: the
// cost of processes outside Watt's metrics (service processes, the delay relay).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let ticksPerSecond = 0

/** Clock ticks per second of /proc's utime and stime (getconf CLK_TCK, 100 almost everywhere). */
function clockTicks () {
  if (!ticksPerSecond) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/**
 * User + system CPU seconds a live process has used so far, or null when it is gone.
 * @param {number} pid
 */
export function processCpuSeconds (pid) {
  let stat
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return (utime + stime) / clockTicks()
}
