// @ts-check
// The data API (the data runtime's entrypoint), under the /data-api prefix:
//   GET /data-api/data/small/disk/{stream,scan,promise}/:speakerId
//   GET /data-api/data/small/net/{stream,scan,promise}/:speakerId?via=ipc|tcp
//   GET /data-api/data/large/{stream,scan,promise}/:zipcode?via=ipc|tcp
// Each answers the JSON array of matching records ([] for an unknown id, 400
// for a malformed one): stream with stream-json, scan with the record scanner
// and JSON.parse per chunk, promise with JSON.parse of the whole text. Data
// that is not a JSON array of records (broken, cut short, a record over the
// cap) answers 502 when nothing was sent yet, else the response is aborted. /data-api/ready proves every source answers;
// /data-api/stats shows what is in flight (tests use it to prove release) and,
// in the runtime with the mesh-port drop-in, which path the data-source calls took.
import Fastify from 'fastify'
import { stat } from 'node:fs/promises'
import { getHeapStatistics } from 'node:v8'
import { threadId } from 'node:worker_threads'
import { request } from 'undici'
import { meshPortStats } from '@watt-lab/channel/mesh-port'
import { DATASETS } from '../dataset/records.js'
import { bufferedMatches, streamMatches } from './json-filter.js'
import { HttpError } from './http-error.js'
import { MemoryBudget } from './memory-budget.js'
import { closeConnectionsOnClose } from '../../../lib/close-connections.js'
import { scanMatches } from './scan-filter.js'
import { createSources } from './sources.js'
import { threadMemory } from './thread-memory.js'

export const PREFIX = '/data-api'
export const MODES = /** @type {const} */ (['stream', 'scan', 'promise'])

/**
 * @param {import('./config.js').DataConfig} config
 * @param {{ budget?: MemoryBudget, logger?: any }} [options]
 */
export function buildDataApi (config, { budget = new MemoryBudget(), logger } = {}) {
  const inFlight = { stream: 0, scan: 0, promise: 0, upstreamReads: 0 }
  const track = {
    opened () {
      inFlight.upstreamReads++
      let open = true
      return () => { if (open) { open = false; inFlight.upstreamReads-- } }
    }
  }
  const sources = createSources(config, track)
  const app = Fastify(logger ? { loggerInstance: logger } : { logger: false })
  closeConnectionsOnClose(app) // a stop with an answer in flight must not wait on its keep-alive client
  app.addHook('onClose', async () => { await sources.close() })

  /**
   * @param {'small' | 'large'} dataset
   * @param {(query: { via?: 'ipc' | 'tcp' }) => import('./sources.js').Via} viaOf
   */
  function handler (dataset, viaOf) {
    const { keyField } = DATASETS[dataset]
    return async (/** @type {any} */ req, /** @type {import('fastify').FastifyReply} */ reply) => {
      const mode = /** @type {typeof MODES[number]} */ (req.params.mode)
      const id = /** @type {string} */ (req.params[keyField])
      const signal = clientGone(reply.raw)
      inFlight[mode]++
      reply.raw.once('close', () => { inFlight[mode]-- })
      try {
        const source = await sources.open(dataset, viaOf(req.query ?? {}), signal)
        reply.type('application/json')
        const { maxRecordBytes } = config
        if (mode === 'stream') return reply.send(asUpstreamFailure(streamMatches(source.stream(), keyField, id, { maxRecordBytes })))
        if (mode === 'scan') return reply.send(asUpstreamFailure(scanMatches(source.stream(), keyField, id, { maxRecordBytes })))
        let release
        try {
          release = await budget.reserve(source.bytes, signal)
        } catch (err) {
          source.discard()
          throw err
        }
        try {
          let whole
          try {
            whole = await source.text()
          } catch (err) {
            if (signal.aborted) throw err
            throw new HttpError(502, `reading the dataset failed: ${/** @type {Error} */ (err).message}`)
          }
          let answer
          try {
            answer = bufferedMatches(whole, keyField, id)
          } catch (err) {
            throw new HttpError(502, `the dataset is not a JSON array of records: ${/** @type {Error} */ (err).message}`)
          }
          return reply.send(answer)
        } finally {
          release()
        }
      } catch (err) {
        // Whatever failed after the client left failed because it left: say so (a 4xx, logged at info).
        throw signal.aborted ? signal.reason : err
      }
    }
  }

  const mode = { type: 'string', enum: MODES }
  const idParams = (/** @type {'small' | 'large'} */ dataset) => {
    const { keyField, idPattern } = DATASETS[dataset]
    return { type: 'object', required: ['mode', keyField], properties: { mode, [keyField]: { type: 'string', pattern: idPattern.source } } }
  }
  const via = { type: 'object', properties: { via: { type: 'string', enum: ['ipc', 'tcp'], default: 'ipc' } } }

  app.get(`${PREFIX}/data/small/disk/:mode/:speakerId`, { schema: { params: idParams('small') } }, handler('small', () => 'disk'))
  app.get(`${PREFIX}/data/small/net/:mode/:speakerId`, { schema: { params: idParams('small'), querystring: via } }, handler('small', (query) => query.via ?? 'ipc'))
  app.get(`${PREFIX}/data/large/:mode/:zipcode`, { schema: { params: idParams('large'), querystring: via } }, handler('large', (query) => query.via ?? 'ipc'))

  app.get(`${PREFIX}/ready`, async (_req, reply) => {
    const problems = await readinessProblems(config)
    return reply.code(problems.length ? 503 : 200).send({ ready: problems.length === 0, problems })
  })
  // threadId changes when Watt replaces a crashed worker: tests use it to prove no crash happened.
  app.get(`${PREFIX}/stats`, async () => ({ inFlight, budget: budget.stats, heapUsedBytes: process.memoryUsage().heapUsed, heapSizeLimitBytes: getHeapStatistics().heap_size_limit, threadId, memory: threadMemory(), meshPort: meshPortStats() }))
  return app
}

/**
 * A streamed answer fails because of its data or its source (malformed JSON,
 * a record over the cap, a source cut short): a 502 while nothing was sent
 * (Fastify answers the error), an aborted response after. Errors that carry
 * their own status (the client's 499) keep it. This listener runs before
 * Fastify's, which reads the status.
 * @param {import('node:stream').Readable} stream
 */
function asUpstreamFailure (stream) {
  stream.once('error', (/** @type {any} */ err) => {
    if (!err || typeof err !== 'object' || err.statusCode !== undefined) return
    err.statusCode = 502
    // the scanner's messages say what is wrong; others (stream-json's, undici's) need the context
    if (err.name !== 'MalformedDataError') err.message = `the dataset could not be streamed: ${err.message}`
  })
  return stream
}

/**
 * An AbortSignal that fires when the client leaves before its answer is sent;
 * its reason is a 499 (nginx's "client closed request"), as nobody reads it.
 * @param {import('node:http').ServerResponse} res
 */
function clientGone (res) {
  const controller = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new HttpError(499, 'the client went away'))
  })
  return controller.signal
}

/**
 * Both datasets readable here, and the data-source answering over the mesh and over TCP.
 * @param {import('./config.js').DataConfig} config
 */
async function readinessProblems (config) {
  const problems = []
  for (const [name, file] of Object.entries(config.files)) {
    if (!file) continue
    try {
      await stat(file)
    } catch (err) {
      problems.push(`${name} dataset: ${/** @type {Error} */ (err).message}`)
    }
  }
  for (const [via, url] of [['ipc', 'http://data-source.plt.local/ready'], ['tcp', `http://127.0.0.1:${config.sourcePort}/ready`]]) {
    try {
      const { statusCode, body } = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 })
      await body.dump()
      if (statusCode !== 200) problems.push(`data-source over ${via} answered ${statusCode}`)
    } catch (err) {
      problems.push(`data-source over ${via}: ${/** @type {Error} */ (err).message}`)
    }
  }
  return problems
}
