// @ts-check
// The two ways of answering "every record whose <key> is <id>" as a JSON array.
// Both produce byte-identical bodies: JSON.stringify of the matching records,
// in dataset order, joined into one array with no whitespace.
import { pipeline, Transform } from 'node:stream'
import chain, { none } from 'stream-chain'
import { parser } from 'stream-json'
import { streamArray } from 'stream-json/streamers/stream-array.js'
import { RecordScanner } from './record-scanner.js'

/**
 * Streaming: tokens → records → matches → JSON text, one pipeline with
 * backpressure from the response back to the source. Memory holds one record at
 * a time plus stream buffers, whatever the dataset's size. Destroying the
 * returned stream (a client that went away) destroys the source too. A record
 * guard in front (the record scanner, checking only) caps a record's size:
 * stream-json would otherwise assemble a record of any size.
 * @param {import('node:stream').Readable} source   the dataset's bytes
 * @param {string} keyField
 * @param {string} id
 * @param {{ maxRecordBytes?: number }} [options]
 * @returns {import('node:stream').Readable}
 */
export function streamMatches (source, keyField, id, { maxRecordBytes } = {}) {
  const records = chain([
    // packed values only: the streamer reads packed tokens, streamed chunks would be waste
    parser({ streamValues: false }),
    // decide as soon as the key is assembled and skip the rest of a non-matching record
    streamArray({ objectFilter: (/** @type {any} */ asm) => keyDecision(asm, keyField, id) }),
    (/** @type {{ value: any }} */ { value }) => (value[keyField] === id ? JSON.stringify(value) : none)
  ])
  const array = jsonArrayText()
  pipeline(source, recordGuard(maxRecordBytes), records, array, () => {}) // errors reach `array`, which the reply watches
  return array
}

/**
 * Passes bytes through unchanged once the record scanner has checked them: the
 * array's shape, each record's size against the cap, and that it was not cut short.
 * @param {number | undefined} maxRecordBytes
 */
function recordGuard (maxRecordBytes) {
  const scanner = new RecordScanner({ maxRecordBytes, keepBytes: false })
  return new Transform({
    transform (/** @type {Buffer} */ chunk, _encoding, callback) {
      try {
        scanner.push(chunk)
      } catch (err) {
        return callback(/** @type {Error} */ (err))
      }
      callback(null, chunk)
    },
    flush (callback) {
      try {
        scanner.end()
        callback()
      } catch (err) {
        callback(/** @type {Error} */ (err))
      }
    }
  })
}

/**
 * Buffered ("promise"): the whole dataset parsed at once, filtered, serialised.
 * @param {string} text  the whole dataset
 * @param {string} keyField
 * @param {string} id
 */
export function bufferedMatches (text, keyField, id) {
  const records = /** @type {Record<string, unknown>[]} */ (JSON.parse(text))
  if (!Array.isArray(records)) throw new TypeError('the dataset is not a JSON array')
  return JSON.stringify(records.filter((record) => record[keyField] === id))
}

/**
 * @param {{ depth: number, current: any }} asm
 * @param {string} keyField
 * @param {string} id
 * @returns {boolean | undefined}  undefined while the key is not read yet
 */
function keyDecision (asm, keyField, id) {
  if (asm.depth !== 2) return undefined // only a record's own keys decide
  const value = asm.current[keyField]
  return value === undefined ? undefined : value === id
}

/** Serialised records in, the text of one JSON array out ("[]" when none). */
function jsonArrayText () {
  let first = true
  return new Transform({
    writableObjectMode: true,
    transform (/** @type {string} */ record, _encoding, callback) {
      callback(null, (first ? '[' : ',') + record)
      first = false
    },
    flush (callback) {
      callback(null, first ? '[]' : ']')
    }
  })
}
