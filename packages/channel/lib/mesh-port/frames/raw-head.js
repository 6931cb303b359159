// @ts-check
// A head written raw to an exchange's socket, as the head frame the caller takes ({ s, r, h }): the 1xx heads
// Node's ServerResponse writes there (writeContinue(), writeProcessing(), writeEarlyHints(), writeInformation()),
// and a final answer a 'clientError' listener writes (exchange-socket.js).

const STATUS_LINE = /^HTTP\/1\.[01] ([1-9][0-9][0-9]) ?([^\r\n]*)\r\n/

/**
 * @param {string} text  what was written (latin1)
 * @returns {{ frame: { s: number, r: string, h: string[] }, rest: string } | null}  the head frame and what
 *   follows the head; null when the text does not start with a whole head
 */
export function rawHead (text) {
  const status = STATUS_LINE.exec(text)
  const end = text.indexOf('\r\n\r\n')
  if (status === null || end < 0) return null
  const frame = { s: Number(status[1]), r: status[2], h: headerLines(text.slice(status[0].length, end)) }
  return { frame, rest: text.slice(end + 4) }
}

/**
 * "Name: value" lines as Node writes them (a head's, or the trailers res.addTrailers() stored), as name/value pairs.
 * @param {string} text
 */
export function headerLines (text) {
  /** @type {string[]} */
  const lines = []
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) lines.push(line.slice(0, colon), line.slice(colon + 1).trim())
  }
  return lines
}
