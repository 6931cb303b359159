// @ts-check
// Dataset sizes as people type them: 4MB, 300MB, 2GB (decimal, like disks and
// the original write-up) or 512MiB, 2GiB (binary), or plain bytes.

const UNITS = /** @type {const} */ ({ b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 })

/**
 * @param {string} text
 * @returns {number} bytes
 */
export function parseSize (text) {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text)
  const unit = (match?.[2] || 'b').toLowerCase()
  if (!match || !(unit in UNITS)) {
    throw new RangeError(`not a size: ${JSON.stringify(text)} (use e.g. 4MB, 300MB, 2GB, 512MiB)`)
  }
  return Math.round(Number(match[1]) * UNITS[/** @type {keyof typeof UNITS} */ (unit)])
}

/**
 * @param {number} bytes
 */
export function formatSize (bytes) {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(bytes % 1e9 === 0 ? 0 : 2)} GB`
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(bytes % 1e6 === 0 ? 0 : 1)} MB`
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} kB`
  return `${bytes} B`
}
