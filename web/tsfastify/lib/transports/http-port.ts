// http-port: real HTTP/1.1 to the service's own http.Server, over one in-process
// MessagePort per service instead of a TCP socket (@watt-lab/channel/http). Same
// listener, parser, headers and bytes as tcp; a pool sized and kept alive as tcp's.
import { createHttpPortDispatcher } from '@watt-lab/channel/http'
import type { CreateTransport } from '../transport.ts'
import { createPooledHttpOver, POOL_KEEP_ALIVE } from './tcp.ts'

// The pool is the in-flight bound, as for tcp: one call per connection,
// callsInFlightPerService connections per service.
export const create: CreateTransport = ({ name, callsInFlightPerService: connections }) =>
  createPooledHttpOver(name, (service) => createHttpPortDispatcher(service, { connections, pool: POOL_KEEP_ALIVE }))
