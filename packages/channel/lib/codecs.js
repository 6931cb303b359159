// @ts-check
// How each kind puts a payload into a frame, and how its size is checked before
// it is sent (usable before a channel exists).
import { cloneExceeds, stringExceeds } from './size.js'

/**
 * @typedef {object} Codec
 * @property {(value: unknown) => unknown} encode throws a TypeError for a value the kind cannot carry
 * @property {(encoded: unknown, max: number) => boolean} exceeds
 */

/**
 * `port`: values cross by structured clone as they are, except a Buffer that shares
 * a larger ArrayBuffer (Node's 8 KiB pool, a 64 KiB slab): its clone would copy the
 * whole backing store, so an exact-size copy goes instead.
 * @type {Codec}
 */
export const portCodec = {
  encode: (value) => {
    const shared = value instanceof Uint8Array && value.byteLength !== value.buffer.byteLength
    return shared ? new Uint8Array(value) : value
  },
  exceeds: cloneExceeds
}

/**
 * `shm`: values cross as JSON text (JSON values only: no BigInt, Map, Buffer, cycles…),
 * so the size is measured exactly.
 * @type {Codec}
 */
export const shmCodec = {
  encode: (value) => {
    const text = JSON.stringify(value)
    return text === undefined ? 'null' : text
  },
  exceeds: (encoded, max) => stringExceeds(/** @type {string} */ (encoded), max)
}

/** @type {Record<'port' | 'shm', Codec>} */
export const CODECS = { port: portCodec, shm: shmCodec }
