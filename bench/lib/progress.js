// @ts-check
// Progress for long runs: what runs now, step k of n, time left. A live bar
// (cli-progress) on a terminal, one line per step otherwise (CI logs).
import cliProgress from 'cli-progress'

/**
 * @param {{ steps: number, secondsPerStep: number, stream?: NodeJS.WriteStream }} options
 */
export function createProgress ({ steps, secondsPerStep, stream = process.stderr }) {
  const totalSeconds = Math.max(1, Math.round(steps * secondsPerStep))
  const live = Boolean(stream.isTTY) && !process.env.CI
  const bar = live
    ? new cliProgress.SingleBar({
      stream,
      format: '{bar} {percentage}% | step {step}/{steps} {label} | ~{left} left',
      hideCursor: true,
      clearOnComplete: true
    }, cliProgress.Presets.shades_classic)
    : null
  let step = 0
  let doneSeconds = 0
  let label = ''
  const left = (/** @type {number} */ elapsed) => formatDuration(totalSeconds - doneSeconds - elapsed)
  bar?.start(totalSeconds, 0, { step: 0, steps, label: '', left: formatDuration(totalSeconds) })

  return {
    /** @param {string} text */
    begin (text) {
      step++
      label = text
      if (bar) bar.update(doneSeconds, { step, steps, label, left: left(0) })
      else stream.write(`[${step}/${steps}] ${label} (about ${left(0)} left)\n`)
    },
    /** @param {number} elapsedS seconds into the current step */
    tick (elapsedS) {
      bar?.update(Math.min(totalSeconds, doneSeconds + elapsedS), { step, steps, label, left: left(elapsedS) })
    },
    end () {
      doneSeconds += secondsPerStep
      bar?.update(Math.min(totalSeconds, doneSeconds), { step, steps, label, left: left(0) })
    },
    /** Prints a line without breaking the bar. @param {string} line */
    log (line) {
      if (bar) {
        stream.write('\r\x1b[2K' + line + '\n')
        bar.update(doneSeconds, { step, steps, label, left: left(0) })
      } else {
        stream.write(line + '\n')
      }
    },
    stop () {
      bar?.stop()
    }
  }
}

/** @param {number} seconds */
export function formatDuration (seconds) {
  const s = Math.max(0, Math.round(seconds))
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`
}
