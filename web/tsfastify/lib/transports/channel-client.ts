// Shared by the port and shm transports: one @watt-lab/channel client per
// downstream service, the `hello` call, and the same verification as rpc.
import { type ChannelClient, connect } from '@watt-lab/channel'
import { checkHelloObject, helloBody, MAX_SIZE } from '../../../../lib/contract.js'
import { type CallRequest, type CallResult, DownstreamError, type Transport, type TransportSettings } from '../transport.ts'

const BACKSTOP_MARGIN_MS = 1000

// What a variant may change (LAB_EXTRA_TRANSPORTS, docs/adding-a-transport.md): the flush, the ring.
export type ChannelTuning = { flush?: 'callback' | 'turn', ringBytes?: number }

export function createChannelTransport ({ name, callTimeoutMs }: TransportSettings, kind: 'port' | 'shm', tuning: ChannelTuning = {}): Transport {
  const clients = new Map<string, ChannelClient>()
  function clientFor (service: string): ChannelClient {
    let client = clients.get(service)
    if (!client) {
      // The fan-out owns the deadline and aborts the signal. The library's own deadline is
      // only a backstop, set past the fan-out's: equal, its one timer per client could fire
      // for another request's calls before that request's fan-out timer ran, and those
      // calls answered 502 instead of 504 (seen in the hang check under load).
      // Answers may carry the largest contract body, with room for the JSON around it.
      // Calls leave at setImmediate, not at the end of each callback: the entry handles
      // several HTTP requests per event-loop turn, one callback each, and this merges
      // their calls into one message per service (measured at c10 p1: port 8,609–9,395
      // req/s against 5,459–5,576 flushing per microtask, CPU per call 30 µs against 60).
      client = connect(service, { kind, timeoutMs: callTimeoutMs + BACKSTOP_MARGIN_MS, maxPayloadBytes: 2 * MAX_SIZE, flush: 'turn', ...tuning })
      clients.set(service, client)
    }
    return client
  }

  return {
    name,
    async call (call: CallRequest, signal: AbortSignal): Promise<CallResult> {
      const message = call.fault ? { size: call.size, delay: call.fault.delay, corrupt: call.fault.corrupt } : { size: call.size }
      // The signal is the fan-out's: its deadline, or an early answer, cancels the
      // call in the service too (its AbortSignal ends a delay there).
      const answer = await clientFor(call.service).call('hello', message, { signal })
      const problem = checkHelloObject(call.service, call.size, answer)
      if (problem) throw new DownstreamError(call.service, problem)
      // bytes: what the same answer weighs as JSON, so every transport reports alike
      return { service: call.service, status: 200, bytes: helloBody(call.service, call.size).length }
    },
    async close () {
      for (const client of clients.values()) client.close()
      clients.clear()
    }
  }
}
