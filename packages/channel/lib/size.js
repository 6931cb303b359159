// @ts-check
// Payload size checks that cost nothing on the common path.

/**
 * Whether a string's UTF-8 encoding is longer than `max` bytes. UTF-8 takes 1 to 3
 * bytes per UTF-16 unit, so only strings between max/3 and max units need a count.
 * @param {string} text
 * @param {number} max
 */
export function stringExceeds (text, max) {
  if (text.length > max) return true
  if (text.length * 3 <= max) return false
  return Buffer.byteLength(text) > max
}

/**
 * For values posted as they are (structured clone): strings and bytes are
 * measured exactly; other values are not measured (that would mean cloning twice).
 * @param {unknown} value
 * @param {number} max
 */
export function cloneExceeds (value, max) {
  if (typeof value === 'string') return stringExceeds(value, max)
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength > max
  return false
}
