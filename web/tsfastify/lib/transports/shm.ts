// shm: the same calls as port, JSON frames in a SharedArrayBuffer ring per
// direction per service (@watt-lab/channel), a MessagePort only as the doorbell.
import type { CreateTransport } from '../transport.ts'
import { createChannelTransport } from './channel-client.ts'

export const create: CreateTransport = (settings) => createChannelTransport(settings, 'shm')
