// @ts-check
// One timer per channel for every call's deadline, not a setTimeout per call (D-deadline-timer): armed for the
// earliest, it has the owner expire what is due when it fires, then arms for the next. While armed it keeps
// the event loop alive, which is what a pending call needs (the ports themselves are unref'd).

export class DeadlineTimer {
  /** @param {(now: number) => number} onDue expires what is due, returns the next deadline or Infinity */
  constructor (onDue) {
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    this.at = Infinity
    this.fire = () => {
      this.timer = null
      this.at = Infinity
      this.arm(onDue(performance.now()))
    }
  }

  /** @param {number} deadline a performance.now() time */
  arm (deadline) {
    if (deadline >= this.at || deadline === Infinity) return
    if (this.timer) clearTimeout(this.timer)
    this.at = deadline
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(deadline - performance.now())))
  }

  stop () {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.at = Infinity
  }
}
