// Watt's answers to a call it could not serve, told apart by code, or by wording on
// releases that send none; the last test holds the codes and wording against the Watt
// installed here.
import t from 'tap'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  APPLICATION_NOT_STARTED, HANDLER_FAILED, handlerFailed, handlerMessage, HANDLER_NOT_FOUND,
  noHandler, notStarted, wattCode
} from '../../lib/watt/call-errors.js'

t.test('the code: the handler\'s own first, then the error\'s', async (t) => {
  t.equal(wattCode({ code: HANDLER_FAILED, handlerErrorCode: 'WATT_CHANNEL_STOPPING' }), 'WATT_CHANNEL_STOPPING')
  t.equal(wattCode({ code: HANDLER_NOT_FOUND }), HANDLER_NOT_FOUND)
  t.equal(wattCode(undefined), undefined, 'no error')
})

t.test('the handler\'s message, without Watt\'s prefix', async (t) => {
  t.equal(handlerMessage('Handler failed with error: no server'), 'no server')
  t.equal(handlerMessage('no server'), 'no server', 'unprefixed: unchanged')
  t.equal(handlerMessage('x Handler failed with error: y'), 'x Handler failed with error: y', 'only a leading prefix')
})

t.test('each kind by its code, whatever the wording', async (t) => {
  t.ok(notStarted(APPLICATION_NOT_STARTED, ''))
  t.ok(noHandler(HANDLER_NOT_FOUND, ''))
  t.ok(handlerFailed(HANDLER_FAILED, ''))
  for (const is of [notStarted, noHandler, handlerFailed]) {
    t.notOk(is('PLT_OTHER', 'boom'), `${is.name}: not another code`)
  }
})

t.test('each kind by its wording, on releases that send no code', async (t) => {
  t.ok(notStarted(undefined, 'Application with id \'catalog\' is not started'))
  t.ok(noHandler(undefined, 'Handler not found for request: "x"'))
  t.ok(noHandler(undefined, 'no handler for x'))
  t.ok(noHandler(undefined, 'handler missing'))
  t.notOk(noHandler(undefined, 'not found'), 'not found, of no handler')
  t.ok(handlerFailed(undefined, 'Handler failed with error: boom'))
})

t.test('the codes and wording are the installed Watt\'s', async (t) => {
  const runtime = dirname(createRequire(import.meta.url).resolve('@platformatic/runtime/package.json'))
  const itc = createRequire(join(runtime, 'package.json')).resolve('@platformatic/itc')
  const { errors } = await import(pathToFileURL(itc).href)
  const runtimeErrors = await import(pathToFileURL(join(runtime, 'lib', 'errors.js')).href)
  const notFound = new errors.HandlerNotFound('x')
  t.equal(notFound.code, HANDLER_NOT_FOUND)
  t.ok(noHandler(undefined, notFound.message), `its wording: ${notFound.message}`)
  const failed = new errors.HandlerFailed('boom')
  t.equal(failed.code, HANDLER_FAILED)
  t.equal(handlerMessage(failed.message), 'boom', `its wording: ${failed.message}`)
  t.ok(handlerFailed(undefined, failed.message))
  const starting = new runtimeErrors.ApplicationNotStartedError('catalog')
  t.equal(starting.code, APPLICATION_NOT_STARTED)
  t.ok(notStarted(undefined, starting.message), `its wording: ${starting.message}`)
})
