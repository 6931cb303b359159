// tcp-remote: HTTP over TCP to the services on another host (the harness's network
// namespace behind a veth pair with an emulated RTT, or --service-host), with tcp's
// pool rules. The harness tells the entry where they listen (<SERVICE>_REMOTE_ADDR).
import { serviceAddressOf } from '../../../../lib/ports.js'
import type { CreateTransport } from '../transport.ts'
import { createPooledHttp } from './tcp.ts'

export const create: CreateTransport = ({ name, callsInFlightPerService }) =>
  createPooledHttp(name, callsInFlightPerService, (service) => serviceAddressOf(service, 'remote'))
