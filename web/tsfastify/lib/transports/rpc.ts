// rpc: Watt's messaging API. A structured-cloned object over a persistent
// MessagePort to the service's worker; no HTTP at all.
import { checkHelloObject, helloBody } from '../../../../lib/contract.js'
import { type CallRequest, type CallResult, type CreateTransport, DownstreamError } from '../transport.ts'

interface Messaging {
  send (application: string, name: string, data: unknown): Promise<unknown>
}

function messaging (): Messaging {
  const api = (globalThis as { platformatic?: { messaging?: Messaging } }).platformatic?.messaging
  if (!api) throw new Error('the rpc transport needs Watt messaging (globalThis.platformatic.messaging)')
  return api
}

export const create: CreateTransport = ({ name }) => {
  return {
    name,
    async call (call: CallRequest): Promise<CallResult> {
      const message = { size: call.size, delay: call.fault?.delay, corrupt: call.fault?.corrupt }
      // messaging.send takes no signal (only the runtime-wide messagingTimeout): the
      // fan-out's deadline races it.
      const answer = await messaging().send(call.service, 'hello', message)
      const problem = checkHelloObject(call.service, call.size, answer)
      if (problem) throw new DownstreamError(call.service, problem)
      // bytes: what the same answer weighs as JSON, so every transport reports alike
      return { service: call.service, status: 200, bytes: helloBody(call.service, call.size).length }
    }
  }
}
