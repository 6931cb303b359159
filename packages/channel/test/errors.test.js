// The error catalog: every code in one namespace, no code outside it, and no error
// built in lib/ without one (a source scan: a plain Error would reach a user codeless).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ChannelError, CODES, connectionReset, InvalidOptionError, isChannelErrorCode, remoteCode, RETRYABLE_CODES } from '../lib/errors.js'

t.test('every code is WATT_CHANNEL_<NAME>, once', async (t) => {
  const values = Object.values(CODES)
  t.equal(new Set(values).size, values.length, 'no code twice')
  for (const [name, code] of Object.entries(CODES)) t.equal(code, `WATT_CHANNEL_${name}`)
  t.ok(Object.isFrozen(CODES), 'the catalog cannot be changed at run time')
  for (const code of RETRYABLE_CODES) t.ok(isChannelErrorCode(code), `${code} retryable and in the catalog`)
})

t.test('a ChannelError takes only codes of the catalog, and names its application', async (t) => {
  const err = new ChannelError('node3', CODES.CLOSED, 'gone', { cause: new Error('why') })
  t.match(err, { name: 'ChannelError', application: 'node3', code: 'WATT_CHANNEL_CLOSED', message: 'node3: gone' })
  t.equal(err.cause.message, 'why')
  t.equal(new ChannelError('', CODES.NO_WATT, 'no Watt').message, 'no Watt', 'no application, no prefix')
  t.throws(() => new ChannelError('x', /** @type {any} */ ('closed'), 'old code'), /not a code of the catalog: closed/)
  const bad = new InvalidOptionError('window must be a positive integer')
  t.ok(bad instanceof TypeError)
  t.equal(bad.code, CODES.INVALID_OPTION)
  t.equal(connectionReset('reset').code, 'ECONNRESET', 'what node:http expects of a peer that left')
})

t.test('a refusal\'s code is read back from a Watt ITC answer, down the causes', async (t) => {
  const answer = Object.assign(new Error('Handler failed with error: stopping'), { handlerErrorCode: CODES.STOPPING })
  t.equal(remoteCode(new ChannelError('app', CODES.UNREACHABLE, 'could not open', { cause: answer })), CODES.STOPPING)
  t.equal(remoteCode(Object.assign(new Error('x'), { handlerError: { code: CODES.NO_SERVER } })), CODES.NO_SERVER)
  t.equal(remoteCode(Object.assign(new Error('x'), { handlerErrorCode: 'PLT_SOMETHING' })), undefined, 'not ours')
  t.equal(remoteCode(new Error('plain')), undefined)
})

t.test('lib/ builds no error without a code of the catalog', async (t) => {
  const root = new URL('../lib/', import.meta.url).pathname
  const files = readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.js'))
  t.ok(files.length > 20, `${files.length} files scanned`)
  /** What may build a plain Error: the catalog itself, and the copy of Watt's answer kept as a cause. */
  const allowed = [/^errors\.js:/, /^watt\/itc\.js:.*handlerErrorCode/]
  const found = []
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (/new (Range|Type|Syntax)?Error\(/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`)
    })
  }
  t.same(found.filter((where) => !allowed.some((ok) => ok.test(where))), [], 'every error is a ChannelError, an InvalidOptionError or a connection reset')
})
