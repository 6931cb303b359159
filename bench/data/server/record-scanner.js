// @ts-check
// Finds the records of a top-level JSON array in a byte stream without parsing
// them: one pass over each chunk, string- and escape-aware, tracking nesting
// depth, with its state carried across chunk boundaries so no byte is scanned
// twice. Each chunk yields the bytes of the records it completed, ready for
// the native JSON.parse (which then validates them in full). A record larger
// than the cap, a broken array or input that ends early throws a
// MalformedDataError saying where.

/** The largest record a streaming variant holds by default (DATA_MAX_RECORD_BYTES). */
export const DEFAULT_MAX_RECORD_BYTES = 8 * 1024 * 1024

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const NEWLINE = 0x0a

/** Line mode parses cuts of at most this many bytes (or the record cap, if lower); longer ones go to the byte scanner. */
const LINE_MODE_MAX_CARRY = 1024 * 1024

// What a byte means outside strings: one table look-up per byte on the hot path.
const IS_QUOTE = 1
const IS_OPEN = 2
const IS_CLOSE = 3
const STRUCTURAL = new Uint8Array(256)
STRUCTURAL[QUOTE] = IS_QUOTE
STRUCTURAL[OPEN_BRACE] = IS_OPEN
STRUCTURAL[OPEN_BRACKET] = IS_OPEN
STRUCTURAL[CLOSE_BRACE] = IS_CLOSE
STRUCTURAL[CLOSE_BRACKET] = IS_CLOSE

// Where the scanner is in the top-level array.
const BEFORE_ARRAY = 0 // only whitespace, then '['
const FIRST_VALUE = 1 // after '[': a record or ']'
const NEXT_VALUE = 2 // after ',': a record
const IN_VALUE = 3 // inside a record
const AFTER_VALUE = 4 // after a record: ',' or ']'
const DONE = 5 // after ']': only whitespace

/** The input is not a JSON array of records, or a record is over the cap. */
export class MalformedDataError extends Error {
  /**
   * @param {string} message
   * @param {'ERR_MALFORMED_DATA' | 'ERR_RECORD_TOO_LARGE' | 'ERR_TRUNCATED_DATA'} code
   */
  constructor (message, code = 'ERR_MALFORMED_DATA') {
    super(message)
    this.name = 'MalformedDataError'
    this.code = code
  }
}

/** @param {number} byte */
function isWhitespace (byte) {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

export class RecordScanner {
  #maxRecordBytes
  #keepBytes
  #phase = BEFORE_ARRAY
  /** absolute offset of the current chunk's first byte */
  #offset = 0
  // inside a record
  #depth = 0
  #inString = false
  #escaped = false
  /** the record is a bare scalar (number, true, false, null): it ends at a delimiter */
  #scalar = false
  /** bytes of the current record seen in earlier chunks */
  #carriedBytes = 0
  /** @type {Buffer[]} those bytes, when kept */
  #carry = []

  /**
   * @param {{ maxRecordBytes?: number, keepBytes?: boolean }} [options]
   *   keepBytes false: only check the shape and the record sizes (a guard in front of another parser)
   */
  constructor ({ maxRecordBytes = DEFAULT_MAX_RECORD_BYTES, keepBytes = true } = {}) {
    this.#maxRecordBytes = maxRecordBytes
    this.#keepBytes = keepBytes
  }

  /** Bytes scanned so far. */
  get offset () {
    return this.#offset
  }

  /**
   * Scans one chunk and parses the records it completed (JSON.parse, so each is
   * validated in full). Returns them, in order (empty when none completed).
   *
   * Fast path, for data with one record per line (what this lab's datasets and
   * most NDJSON-like arrays look like): a raw newline is never inside a JSON
   * string, so the text up to a chunk's last newline is handed to JSON.parse
   * whole, with no byte scanned in JavaScript. That is safe because JSON is
   * parsed left to right: '[' + text + ']' parses only if the text ends exactly
   * after a top-level record (a cut inside a record or string leaves it open),
   * so a successful parse proves the cut. The first failure (pretty-printed or
   * single-line data, a broken record, the array's end) hands that chunk, and
   * every later one, to the byte scanner, which finds boundaries and errors
   * exactly as before.
   * @param {Buffer} chunk
   * @returns {any[]}
   */
  pushRecords (chunk) {
    if (this.#lines) {
      const records = this.#pushLines(chunk)
      if (records) return records
      chunk = this.#leaveLineMode(chunk)
    }
    const batch = this.push(chunk)
    return batch === null ? [] : parseRecords(batch, this.#offset)
  }

  /**
   * The input ended: parses the records still held, then checks the array was
   * closed (see end()).
   * @returns {any[]}
   */
  endRecords () {
    let records = []
    if (this.#lines && this.#lineCarry.length) {
      const batch = this.push(this.#leaveLineMode(Buffer.alloc(0)))
      if (batch !== null) records = parseRecords(batch, this.#offset)
    }
    this.end()
    return records
  }

  /** Line mode: on; the unparsed bytes after the last cut. */
  #lines = true
  /** @type {Buffer} */
  #lineCarry = Buffer.alloc(0)

  /**
   * @param {Buffer} chunk
   * @returns {any[] | null}  null: this chunk does not fit line mode (nothing changed)
   */
  #pushLines (chunk) {
    const last = chunk.lastIndexOf(NEWLINE)
    const carried = this.#lineCarry.length
    // Every record of a cut lies within the cut, so a cut no longer than the cap proves every
    // record is within the cap; longer cuts go to the byte scanner, which measures each record.
    const limit = Math.min(LINE_MODE_MAX_CARRY, this.#maxRecordBytes)
    if (carried + last > limit) return null
    if (last < 0) {
      // no line end yet: carry the chunk, unless the line outgrows the limit (single-line data)
      if (carried + chunk.length <= limit) {
        this.#lineCarry = carried ? Buffer.concat([this.#lineCarry, chunk]) : chunk
        this.#offset += chunk.length
        return []
      }
      return null
    }
    // decode up to the first newline with the carry (a character may straddle the chunks), the rest apart
    const first = chunk.indexOf(NEWLINE)
    const head = carried ? Buffer.concat([this.#lineCarry, chunk.subarray(0, first)]).toString('utf8') : chunk.toString('utf8', 0, first)
    const text = head + chunk.toString('utf8', first, last)
    const cut = this.#cutRecords(text)
    if (cut === null) return null
    this.#lineCarry = chunk.subarray(last + 1)
    this.#offset += chunk.length
    return cut
  }

  /**
   * Parses the records of a line-cut text, given the phase before it; null when
   * it does not parse as whole records (then nothing changed).
   * @param {string} text
   * @returns {any[] | null}
   */
  #cutRecords (text) {
    let from = 0
    let to = text.length
    while (from < to && isWhitespace(text.charCodeAt(from))) from++
    while (to > from && isWhitespace(text.charCodeAt(to - 1))) to--
    if (from === to) return []
    let phase = this.#phase
    if (phase === BEFORE_ARRAY) {
      if (text.charCodeAt(from) !== OPEN_BRACKET) return null
      from++
      while (from < to && isWhitespace(text.charCodeAt(from))) from++
      phase = FIRST_VALUE
      if (from === to) {
        this.#phase = phase
        return []
      }
    } else if (phase === AFTER_VALUE) {
      if (text.charCodeAt(from) !== COMMA) return null
      from++
      phase = NEXT_VALUE
    } else if (phase !== FIRST_VALUE && phase !== NEXT_VALUE) {
      return null
    }
    let next = AFTER_VALUE
    if (text.charCodeAt(to - 1) === COMMA) {
      to--
      next = NEXT_VALUE
    }
    let records
    try {
      records = JSON.parse('[' + text.slice(from, to) + ']')
    } catch {
      return null
    }
    // '[' + ',' + ']' cannot parse, so an empty cut only ever follows a lone comma
    if (records.length === 0 && next === NEXT_VALUE) return null
    this.#phase = next
    return records
  }

  /**
   * Line mode off for good: returns the bytes it held followed by the chunk, for
   * the byte scanner, which resumes in the phase line mode left.
   * @param {Buffer} chunk
   */
  #leaveLineMode (chunk) {
    this.#lines = false
    const carry = this.#lineCarry
    this.#lineCarry = Buffer.alloc(0)
    if (carry.length === 0) return chunk
    this.#offset -= carry.length
    return Buffer.concat([carry, chunk])
  }

  /**
   * Scans one chunk. Returns the bytes of every record completed in it (with
   * the separators between them: the inside of a JSON array), or null.
   * @param {Buffer} chunk
   * @returns {Buffer | null}
   */
  push (chunk) {
    const n = chunk.length
    if (n === 0) return null
    // where the records completed in this chunk start (0 when one began in an earlier chunk)
    let batchStart = this.#phase === IN_VALUE ? 0 : -1
    let batchEnd = -1
    let recordStart = 0 // in this chunk; 0 for a record carried over
    let i = 0
    while (i < n) {
      if (this.#phase === IN_VALUE) {
        const end = this.#scanValue(chunk, i)
        if (end < 0) break // the record goes on in the next chunk
        const bytes = this.#carriedBytes + end - recordStart
        if (bytes > this.#maxRecordBytes) throw this.#tooLarge(this.#offset + end)
        this.#carriedBytes = 0
        batchEnd = end
        i = end
        this.#phase = AFTER_VALUE
        continue
      }
      const byte = chunk[i]
      if (isWhitespace(byte)) { i++; continue }
      switch (this.#phase) {
        case BEFORE_ARRAY:
          if (byte !== OPEN_BRACKET) throw this.#unexpected(byte, i, 'the opening [ of the array')
          this.#phase = FIRST_VALUE
          i++
          break
        case FIRST_VALUE:
        case NEXT_VALUE:
          if (byte === CLOSE_BRACKET && this.#phase === FIRST_VALUE) {
            this.#phase = DONE
            i++
            break
          }
          if (byte === CLOSE_BRACKET || byte === COMMA) throw this.#unexpected(byte, i, 'a record')
          recordStart = i
          if (batchStart < 0) batchStart = i
          this.#phase = IN_VALUE
          this.#depth = 0
          this.#inString = false
          this.#escaped = false
          this.#scalar = byte !== OPEN_BRACE && byte !== OPEN_BRACKET && byte !== QUOTE
          break
        case AFTER_VALUE:
          if (byte === COMMA) this.#phase = NEXT_VALUE
          else if (byte === CLOSE_BRACKET) this.#phase = DONE
          else throw this.#unexpected(byte, i, ', or ] after a record')
          i++
          break
        default: // DONE
          throw this.#unexpected(byte, i, 'nothing after the closing ]')
      }
    }

    let batch = null
    if (batchEnd >= 0 && this.#keepBytes) {
      const tail = chunk.subarray(batchStart, batchEnd)
      batch = this.#carry.length ? Buffer.concat([...this.#carry, tail]) : tail
      this.#carry = []
    }
    if (this.#phase === IN_VALUE) {
      const from = recordStart // 0 when the record began in an earlier chunk
      this.#carriedBytes += n - from
      if (this.#carriedBytes > this.#maxRecordBytes) throw this.#tooLarge(this.#offset + n)
      if (this.#keepBytes) this.#carry.push(chunk.subarray(from))
    }
    this.#offset += n
    return batch
  }

  /** Checks that the input ended after the closing ]. */
  end () {
    if (this.#phase === DONE) return
    const where = this.#phase === IN_VALUE
      ? (this.#inString ? 'inside a string' : 'inside a record')
      : this.#phase === BEFORE_ARRAY ? 'before the array began' : 'before the array was closed'
    throw new MalformedDataError(`the data ended ${where}, at byte ${this.#offset}: it was cut short`, 'ERR_TRUNCATED_DATA')
  }

  /**
   * Scans the current record from `i`; returns the index just past its end, or
   * -1 when the chunk ends first (the state is kept for the next chunk).
   * @param {Buffer} chunk
   * @param {number} i
   */
  #scanValue (chunk, i) {
    const n = chunk.length
    if (this.#scalar) {
      // number, true, false, null: up to the next delimiter (JSON.parse checks the spelling)
      while (i < n) {
        const byte = chunk[i]
        if (byte === COMMA || byte === CLOSE_BRACKET || isWhitespace(byte)) return i
        if (byte === OPEN_BRACE || byte === OPEN_BRACKET || byte === QUOTE || byte === CLOSE_BRACE) throw this.#unexpected(byte, i, 'the end of a number or literal')
        i++
      }
      return -1
    }
    let depth = this.#depth
    let inString = this.#inString
    if (this.#escaped) { // an escape's backslash ended the previous chunk
      this.#escaped = false
      i++
    }
    while (i < n) {
      if (inString) {
        // the string's bytes, up to its closing quote, skipping escaped bytes (\" and \\ included)
        for (;;) {
          if (i >= n) break
          const byte = chunk[i++]
          if (byte === QUOTE) {
            inString = false
            break
          }
          if (byte === BACKSLASH) {
            if (i === n) {
              this.#escaped = true
              break
            }
            i++
          }
        }
        if (inString) break
        if (depth === 0) return i // a record that is a string
        continue
      }
      const kind = STRUCTURAL[chunk[i++]]
      if (kind === 0) continue // most bytes: one table look-up
      if (kind === IS_QUOTE) {
        inString = true
      } else if (kind === IS_OPEN) {
        depth++
      } else if (kind === IS_CLOSE) {
        if (--depth === 0) {
          this.#depth = 0
          this.#inString = false
          return i
        }
        if (depth < 0) throw this.#unexpected(chunk[i - 1], i - 1, 'a record')
      }
    }
    this.#depth = depth
    this.#inString = inString
    return -1
  }

  /** @param {number} at */
  #tooLarge (at) {
    return new MalformedDataError(`a record is larger than the ${this.#maxRecordBytes}-byte limit (DATA_MAX_RECORD_BYTES), at byte ${at}: refusing to hold it in memory`, 'ERR_RECORD_TOO_LARGE')
  }

  /**
   * @param {number} byte
   * @param {number} i
   * @param {string} expected
   */
  #unexpected (byte, i, expected) {
    const shown = byte >= 0x20 && byte < 0x7f ? JSON.stringify(String.fromCharCode(byte)) : `byte 0x${byte.toString(16).padStart(2, '0')}`
    return new MalformedDataError(`not a JSON array of records: expected ${expected}, found ${shown} at byte ${this.#offset + i}`)
  }
}

/**
 * Parses complete records (with the separators between them) as one JSON
 * array; a record that is not valid JSON is a MalformedDataError.
 * @param {Buffer} batch
 * @param {number} endOffset  where the chunk that completed them ends in the input
 * @returns {any[]}
 */
export function parseRecords (batch, endOffset) {
  try {
    return JSON.parse('[' + batch.toString('utf8') + ']')
  } catch (err) {
    throw new MalformedDataError(`a record is not valid JSON (in the ${batch.length} bytes of records ending by byte ${endOffset}): ${/** @type {Error} */ (err).message}`)
  }
}
