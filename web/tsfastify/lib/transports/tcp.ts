// tcp: HTTP over loopback TCP to the very same worker and listener, on the
// service's own port, through one explicitly sized keep-alive pool per target.
// tcp-process and tcp-remote reuse the same pool rules with other addresses.
import { Pool } from 'undici'
import { HOST, tcpPortOf } from '../../../../lib/ports.js'
import { SERVER_KEEP_ALIVE_MS } from '../../../../lib/downstream.js'
import { type CallRequest, type CallResult, type CreateTransport, helloPath, type Transport } from '../transport.ts'
import { verifyHttpAnswer } from './http-answer.ts'

// Client keep-alive well below the server's, so the client always closes an idle
// socket first and never writes to one the server is closing ("other side closed").
const CLIENT_KEEP_ALIVE_MS = SERVER_KEEP_ALIVE_MS / 2

// The pool is the in-flight bound: one call per connection, callsInFlightPerService
// connections per service (so the entry adds no queue in front of it).
export const create: CreateTransport = ({ name, callsInFlightPerService: connections }) =>
  createPooledHttp(name, connections, (service) => ({ host: HOST, port: tcpPortOf(service) }))

/**
 * HTTP/1.1 through one keep-alive undici Pool per service at `addressOf(service)`:
 * `connections` sockets, no pipelining, the client's keep-alive below the server's.
 */
export function createPooledHttp (name: string, connections: number, addressOf: (service: string) => { host: string, port: number }): Transport {
  return createPooledHttpOver(name, (service) => {
    const { host, port } = addressOf(service)
    return new Pool(`http://${host.includes(':') ? `[${host}]` : host}:${port}`, { connections, ...POOL_KEEP_ALIVE, pipelining: 1 })
  })
}

/** The keep-alive every pooled HTTP transport uses (tcp's, and http-port's over a MessagePort). */
export const POOL_KEEP_ALIVE = { keepAliveTimeout: CLIENT_KEEP_ALIVE_MS, keepAliveMaxTimeout: CLIENT_KEEP_ALIVE_MS }

/**
 * One pool per service, made on first use by `poolFor`; the pool is the in-flight bound.
 * Every HTTP transport with a pool of its own is this (the tcp family and http-port).
 */
export function createPooledHttpOver (name: string, makePool: (service: string) => Pool): Transport {
  const pools = new Map<string, Pool>()
  function poolFor (service: string): Pool {
    let pool = pools.get(service)
    if (!pool) {
      pool = makePool(service)
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
