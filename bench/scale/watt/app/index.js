// @ts-check
// `watt`: the same handler as a @platformatic/node application. Returning the
// server (not listening ourselves) lets Watt bind it on the runtime's port in
// every worker thread (SO_REUSEPORT when workers > 1).
import { createServer } from 'node:http'
import { handle } from '../../handler.js'

export function create () {
  return createServer(handle)
}
