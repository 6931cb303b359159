// @ts-check
// Where a dataset's bytes come from: the local disk, or the data-source service
// over Watt's mesh (`ipc`, http://data-source.plt.local) or over loopback TCP
// to the same service's own port (`tcp`, a sized keep-alive pool).
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { Pool, request } from 'undici'
import { HttpError } from './http-error.js'

export const VIAS = /** @type {const} */ (['disk', 'ipc', 'tcp'])
/** @typedef {typeof VIAS[number]} Via */

const READ_CHUNK = 64 * 1024

/**
 * An opened dataset: its size is known before any byte is read, so the
 * buffered variant can reserve memory first. Exactly one of stream(), text()
 * or discard() must be called.
 * @typedef {object} OpenedDataset
 * @property {number} bytes
 * @property {() => import('node:stream').Readable} stream
 * @property {() => Promise<string>} text
 * @property {() => void} discard
 */

/**
 * @param {import('./config.js').DataConfig} config
 * @param {{ opened: () => () => void }} track  counts open upstream reads (for /stats)
 */
export function createSources (config, track) {
  // Client keep-alive below Node's server default (5 s), so the client closes an idle socket first.
  const pool = new Pool(`http://127.0.0.1:${config.sourcePort}`, {
    connections: config.tcpConnections,
    keepAliveTimeout: 4000,
    keepAliveMaxTimeout: 4000,
    headersTimeout: config.upstreamTimeoutMs,
    bodyTimeout: config.upstreamTimeoutMs
  })

  /**
   * @param {'small' | 'large'} dataset
   * @param {Via} via
   * @param {AbortSignal} signal  the client's: aborts the read when it leaves
   * @returns {Promise<OpenedDataset>}
   */
  async function open (dataset, via, signal) {
    if (!config.files[dataset]) throw new HttpError(503, `the ${dataset} dataset is not configured in this runtime`)
    if (via === 'disk') {
      const file = /** @type {string} */ (config.files[dataset])
      const { size } = await stat(file)
      return {
        bytes: size,
        stream: () => tracked(createReadStream(file, { highWaterMark: READ_CHUNK, signal }), track),
        text: async () => {
          const done = track.opened()
          try {
            return await readFile(file, { encoding: 'utf8', signal })
          } finally {
            done()
          }
        },
        discard: () => {}
      }
    }
    const path = `/datasets/${dataset}`
    let answer
    try {
      answer = via === 'ipc'
        ? await request(`http://data-source.plt.local${path}`, { signal, headersTimeout: config.upstreamTimeoutMs, bodyTimeout: config.upstreamTimeoutMs })
        : await pool.request({ method: 'GET', path, signal })
    } catch (err) {
      if (signal.aborted) throw err
      throw new HttpError(502, `data-source unreachable over ${via}: ${/** @type {Error} */ (err).message}`)
    }
    const body = tracked(answer.body, track)
    if (answer.statusCode !== 200) {
      drop(body)
      throw new HttpError(502, `data-source answered ${answer.statusCode} over ${via}`)
    }
    const bytes = Number(answer.headers['content-length'])
    if (!Number.isSafeInteger(bytes)) {
      drop(body)
      throw new HttpError(502, `data-source sent no content-length over ${via}`)
    }
    return { bytes, stream: () => body, text: () => body.text(), discard: () => drop(body) }
  }

  return { open, close: () => pool.close() }
}

/**
 * Abandons an unread body. undici reports that as an 'error' (RequestAborted);
 * unheard, it would be an uncaught exception that takes the worker down.
 * @param {import('node:stream').Readable} body
 */
function drop (body) {
  body.on('error', () => {})
  body.destroy()
}

/**
 * @template {import('node:stream').Readable} T
 * @param {T} stream
 * @param {{ opened: () => () => void }} track
 * @returns {T}
 */
function tracked (stream, track) {
  const done = track.opened()
  stream.once('close', done)
  return stream
}
