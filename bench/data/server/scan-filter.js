// @ts-check
// The third way of answering "every record whose <key> is <id>": stream the
// bytes, let the record scanner cut them at record boundaries (at line ends
// when the data has one record per line), and hand each chunk's complete
// records to the native JSON.parse as one batch. Every record
// is parsed (so every record is validated, as the other variants do); only the
// tokenizing moves from JavaScript into V8's parser. Memory holds one chunk's
// records plus at most one unfinished record, capped.
import { pipeline, Transform } from 'node:stream'
import { RecordScanner } from './record-scanner.js'

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
  /** @param {any[]} records */
  const matches = (records) => {
    let text = ''
    for (const record of records) {
      if (record !== null && typeof record === 'object' && record[keyField] === id) {
        text += (first ? '[' : ',') + JSON.stringify(record)
        first = false
      }
    }
    return text
  }
  return new Transform({
    transform (/** @type {Buffer} */ chunk, _encoding, callback) {
      let text
      try {
        text = matches(scanner.pushRecords(chunk))
      } catch (err) {
        return callback(/** @type {Error} */ (err))
      }
      callback(null, text === '' ? undefined : text)
    },
    flush (callback) {
      let text
      try {
        text = matches(scanner.endRecords())
      } catch (err) {
        return callback(/** @type {Error} */ (err))
      }
      callback(null, text + (first ? '[]' : ']'))
    }
  })
}
