// tcp-container: HTTP over TCP to the same service code run in its own Docker
// container, through the port the engine publishes on 127.0.0.1 (the path real
// teams run: docker-proxy / NAT, a veth and a bridge), with tcp's pool rules. The
// harness starts the containers and tells the entry where (<SERVICE>_CONTAINER_ADDR).
import { serviceAddressOf } from '../../../../lib/ports.js'
import type { CreateTransport } from '../transport.ts'
import { createPooledHttp } from './tcp.ts'

export const create: CreateTransport = ({ name, callsInFlightPerService }) =>
  createPooledHttp(name, callsInFlightPerService, (service) => serviceAddressOf(service, 'container'))
