// tcp-process: HTTP over loopback TCP to the same service code (same contract, same
// /hello listener) run as its own Node process, with tcp's pool rules. The harness
// starts the processes and tells the entry where they listen (<SERVICE>_PROCESS_ADDR).
import { serviceAddressOf } from '../../../../lib/ports.js'
import type { CreateTransport } from '../transport.ts'
import { createPooledHttp } from './tcp.ts'

export const create: CreateTransport = ({ name, callsInFlightPerService }) =>
  createPooledHttp(name, callsInFlightPerService, (service) => serviceAddressOf(service, 'process'))
