// @ts-check
// The worker's logger (Watt's pino, with the application's name), or stderr
// outside Watt. Route decisions are logged at info: PLT_LOG_LEVEL=info shows them;
// each request sent again to another worker at debug.
import { logger } from '../watt/globals.js'

/** @typedef {{ debug: (msg: string) => void, info: (msg: string) => void, warn: (msg: string) => void }} Log */

/** @returns {Log} */
export function workerLog () {
  return {
    debug: (msg) => logger()?.debug(msg),
    info: (msg) => logger()?.info(msg),
    warn: (msg) => { const l = logger(); if (l) l.warn(msg); else process.emitWarning(msg) }
  }
}
