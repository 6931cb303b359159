// Calls N downstream services in parallel over one transport, under one
// deadline, and turns the outcome into the entry's answer: 200, 502 or 504.
import { type CallRequest, type CallResult, DownstreamError, type Transport } from './transport.ts'
import { untilAborted } from './transports/abort.ts'

export type FanOutOutcome =
  | { statusCode: 200, body: { transport: string, size: number, fanout: number, results: CallResult[] } }
  | { statusCode: 502 | 504, body: { statusCode: 502 | 504, error: string, message: string, service: string, transport: string } }

class DeadlineExceeded extends Error {}

export async function fanOut (transport: Transport, calls: CallRequest[], timeoutMs: number): Promise<FanOutOutcome> {
  const controller = new AbortController()
  const pending = new Set(calls.map((call) => call.service))
  const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs)
  try {
    const results = await Promise.all(calls.map(async (call) => {
      try {
        // Raced here too, so the deadline holds even for a call that ignores its signal.
        const result = await untilAborted(transport.call(call, controller.signal), controller.signal)
        pending.delete(call.service)
        return result
      } catch (err) {
        if (err instanceof DownstreamError || controller.signal.aborted) throw err
        // A transport-level failure (refused connection, messaging error) is the service's too.
        throw new DownstreamError(call.service, `could not be reached: ${(err as Error).message}`)
      }
    }))
    const size = calls[0]?.size ?? 0
    return { statusCode: 200, body: { transport: transport.name, size, fanout: calls.length, results } }
  } catch (err) {
    if (controller.signal.reason instanceof DeadlineExceeded) {
      const late = [...pending].join(', ')
      return failure(504, 'Gateway Timeout', transport.name, late, `${late} did not answer within ${timeoutMs} ms over ${transport.name}`)
    }
    const failed = err as DownstreamError
    return failure(502, 'Bad Gateway', transport.name, failed.service, `${failed.message} over ${transport.name}`)
  } finally {
    clearTimeout(deadline)
    // Fail fast: calls still in flight once the answer is decided are cancelled.
    if (pending.size > 0 && !controller.signal.aborted) controller.abort(new Error('fan-out settled'))
  }
}

function failure (statusCode: 502 | 504, error: string, transport: string, service: string, message: string): FanOutOutcome {
  return { statusCode, body: { statusCode, error, message, service, transport } }
}
