// port: request/response over a dedicated MessagePort per downstream service
// (@watt-lab/channel), every call of one turn in one message, answers likewise.
import type { CreateTransport } from '../transport.ts'
import { createChannelTransport } from './channel-client.ts'

export const create: CreateTransport = (settings) => createChannelTransport(settings, 'port')
