// http-port: real HTTP/1.1 to the service's own http.Server, over one in-process
// MessagePort per service instead of a TCP socket (@watt-lab/channel/http). Same
// listener, parser, headers and bytes as tcp; a pool sized and kept alive as tcp's.
import type { Pool } from 'undici'
import { createHttpPortDispatcher } from '@watt-lab/channel/http'
import { SERVER_KEEP_ALIVE_MS } from '../../../../lib/downstream.js'
import { type CallRequest, type CallResult, type CreateTransport, helloPath } from '../transport.ts'
import { verifyHttpAnswer } from './http-answer.ts'

// As tcp's: the client closes an idle connection before the server would.
const CLIENT_KEEP_ALIVE_MS = SERVER_KEEP_ALIVE_MS / 2

// The pool is the in-flight bound, as for tcp: one call per connection,
// callsInFlightPerService connections per service.
export const create: CreateTransport = ({ name, callsInFlightPerService: connections }) => {
  const pools = new Map<string, Pool>()
  function poolFor (service: string): Pool {
    let pool = pools.get(service)
    if (!pool) {
      pool = createHttpPortDispatcher(service, {
        connections,
        pool: { keepAliveTimeout: CLIENT_KEEP_ALIVE_MS, keepAliveMaxTimeout: CLIENT_KEEP_ALIVE_MS }
      })
      pools.set(service, pool)
    }
    return pool
  }

  return {
    name,
    limitsInFlight: true,
    async call (call: CallRequest, signal: AbortSignal): Promise<CallResult> {
      const answer = await poolFor(call.service).request({ method: 'GET', path: helloPath(call), signal })
      return verifyHttpAnswer(call, answer)
    },
    async close () {
      await Promise.all([...pools.values()].map((pool) => pool.close()))
      pools.clear()
    }
  }
}
