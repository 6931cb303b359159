// Reads and verifies an HTTP answer from a downstream service (ipc and tcp share it).
import type { Dispatcher } from 'undici'
import { checkHelloBody } from '../../../../lib/contract.js'
import { type CallRequest, type CallResult, DownstreamError } from '../transport.ts'

export async function verifyHttpAnswer (request: CallRequest, answer: Dispatcher.ResponseData): Promise<CallResult> {
  const body = Buffer.from(await answer.body.arrayBuffer())
  if (answer.headers['content-length'] === undefined) {
    throw new DownstreamError(request.service, 'answered without content-length')
  }
  const problem = checkHelloBody(request.service, request.size, answer.statusCode, body)
  if (problem) throw new DownstreamError(request.service, problem)
  return { service: request.service, status: answer.statusCode, bytes: body.length }
}
