// @ts-check
// How Watt answers a call it could not hand to a handler, or whose handler threw: its
// codes (@platformatic/itc's and @platformatic/runtime's errors.js), and its wording,
// for the releases whose answers carry no code.

/** No handler of that name in the worker (it does not run the drop-in). */
export const HANDLER_NOT_FOUND = 'PLT_ITC_HANDLER_NOT_FOUND'
/** The handler threw; its message follows HANDLER_FAILED_PREFIX. */
export const HANDLER_FAILED = 'PLT_ITC_HANDLER_FAILED'
/** The worker's application has not started yet. */
export const APPLICATION_NOT_STARTED = 'PLT_RUNTIME_APPLICATION_NOT_STARTED'

const HANDLER_FAILED_PREFIX = /^Handler failed with error: /

/**
 * Watt's code on a failed call's error: the handler's error's when it had one.
 * @param {any} err
 * @returns {unknown}
 */
export function wattCode (err) {
  return err?.handlerErrorCode ?? err?.code
}

/**
 * The handler's own message, without the words Watt puts before it.
 * @param {string} text
 */
export function handlerMessage (text) {
  return text.replace(HANDLER_FAILED_PREFIX, '')
}

/**
 * The worker's application is not started yet.
 * @param {unknown} code  wattCode()
 * @param {string} text  the error's message
 */
export function notStarted (code, text) {
  return code === APPLICATION_NOT_STARTED || /is not started/i.test(text)
}

/**
 * The worker has no handler of that name.
 * @param {unknown} code  wattCode()
 * @param {string} text  the error's message
 */
export function noHandler (code, text) {
  return code === HANDLER_NOT_FOUND || (/handler/i.test(text) && /not found|missing|no handler/i.test(text))
}

/**
 * The handler threw.
 * @param {unknown} code  wattCode()
 * @param {string} text  the error's message
 */
export function handlerFailed (code, text) {
  return code === HANDLER_FAILED || /Handler failed/i.test(text)
}
