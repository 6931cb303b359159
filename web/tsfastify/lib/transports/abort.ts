// Races a promise against an AbortSignal, for calls that do not honour a signal.
// `discardLate` releases a value that arrives after the race was lost (e.g. an
// unread response body), so an abandoned call holds nothing.
export function untilAborted<T> (promise: Promise<T>, signal: AbortSignal, discardLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        if (signal.aborted) discardLate?.(value)
        else resolve(value)
      },
      (err) => { signal.removeEventListener('abort', onAbort); reject(err) }
    )
  })
}
