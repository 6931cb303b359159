// direct: no call at all. The same bytes built and verified in-process: the
// floor that shows what the fan-out costs with zero transport.
import { setTimeout as sleep } from 'node:timers/promises'
import { checkHelloBody, corruptBody, helloBody } from '../../../../lib/contract.js'
import { type CallRequest, type CallResult, type CreateTransport, DownstreamError } from '../transport.ts'

export const create: CreateTransport = ({ name }) => {
  return {
    name,
    async call (call: CallRequest, signal: AbortSignal): Promise<CallResult> {
      if (call.fault?.delay) await sleep(call.fault.delay, undefined, { signal })
      const body = call.fault?.corrupt ? corruptBody(call.service, call.size) : helloBody(call.service, call.size)
      const problem = checkHelloBody(call.service, call.size, 200, body)
      if (problem) throw new DownstreamError(call.service, problem)
      return { service: call.service, status: 200, bytes: body.length }
    }
  }
}
