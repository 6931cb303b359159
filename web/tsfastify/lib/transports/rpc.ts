// rpc: Watt's messaging API. A structured-cloned object over a persistent
// MessagePort to the service's worker; no HTTP at all.
import { wattMessaging } from '@watt-lab/channel'
import { checkHelloObject, helloBody } from '../../../../lib/contract.js'
import { type CallRequest, type CallResult, type CreateTransport, DownstreamError } from '../transport.ts'

export const create: CreateTransport = ({ name }) => {
  return {
    name,
    async call (call: CallRequest): Promise<CallResult> {
      const message = { size: call.size, delay: call.fault?.delay, corrupt: call.fault?.corrupt }
      // messaging.send takes no signal (only the runtime-wide messagingTimeout): the
      // fan-out's deadline races it.
      // Watt's own messaging, with first contacts serialized: parallel first sends to one
      // service leak a channel that keeps this thread alive at stop (@watt-lab/channel first-contact.js).
      const answer = await wattMessaging().send(call.service, 'hello', message)
      const problem = checkHelloObject(call.service, call.size, answer)
      if (problem) throw new DownstreamError(call.service, problem)
      // bytes: what the same answer weighs as JSON, so every transport reports alike
      return { service: call.service, status: 200, bytes: helloBody(call.service, call.size).length }
    }
  }
}
