// @ts-check
// The third way of answering "every record whose <key> is <id>": stream the
// bytes, let the record scanner cut them at record boundaries, and hand each
// chunk's complete records to the native JSON.parse as one batch. Every record
// is parsed (so every record is validated, as the other variants do); only the
// tokenizing moves from JavaScript into V8's parser. Memory holds one chunk's
// records plus at most one unfinished record, capped.
import { pipeline, Transform } from 'node:stream'
import { MalformedDataError, RecordScanner } from './record-scanner.js'

/**
 * @param {import('node:stream').Readable} source   the dataset's bytes
 * @param {string} keyField
 * @param {string} id
 * @param {{ maxRecordBytes?: number }} [options]
 * @returns {import('node:stream').Readable}  the JSON array text of the matches; errors with a MalformedDataError
 */
export function scanMatches (source, keyField, id, { maxRecordBytes } = {}) {
  const array = scanFilter(keyField, id, { maxRecordBytes })
  pipeline(source, array, () => {}) // errors reach `array`, which the reply watches
  return array
}

/**
 * The scanning filter alone: dataset bytes in, the matches' JSON array text out.
 * @param {string} keyField
 * @param {string} id
 * @param {{ maxRecordBytes?: number }} [options]
 */
export function scanFilter (keyField, id, { maxRecordBytes } = {}) {
  const scanner = new RecordScanner({ maxRecordBytes })
  let first = true
  return new Transform({
    transform (/** @type {Buffer} */ chunk, _encoding, callback) {
      let records
      try {
        const batch = scanner.push(chunk)
        if (batch === null) return callback()
        records = parseBatch(batch, scanner.offset)
      } catch (err) {
        return callback(/** @type {Error} */ (err))
      }
      let text = ''
      for (const record of records) {
        if (record !== null && typeof record === 'object' && record[keyField] === id) {
          text += (first ? '[' : ',') + JSON.stringify(record)
          first = false
        }
      }
      callback(null, text === '' ? undefined : text)
    },
    flush (callback) {
      try {
        scanner.end()
      } catch (err) {
        return callback(/** @type {Error} */ (err))
      }
      callback(null, first ? '[]' : ']')
    }
  })
}

/**
 * @param {Buffer} batch  complete records with their separators
 * @param {number} endOffset  where the chunk that completed them ends in the input
 * @returns {any[]}
 */
function parseBatch (batch, endOffset) {
  try {
    return JSON.parse('[' + batch.toString('utf8') + ']')
  } catch (err) {
    throw new MalformedDataError(`a record is not valid JSON (in the ${batch.length} bytes of records ending by byte ${endOffset}): ${/** @type {Error} */ (err).message}`)
  }
}
