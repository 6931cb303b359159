// At most N calls in flight to each service; the rest wait in a FIFO queue
// whose wait counts against the call's deadline.
//
// Why: unbounded, 1,000 client requests put ~4,000 mesh calls in flight, and the
// entry then works off their answers in event-loop turns of about a second. Node 24's
// libuv accepts one connection per turn, so new clients waited in the kernel's accept
// queue for tens of seconds (measured: accept queue 51 deep, draining ~2 per second).
// tcp was bounded all along by its pool (one call per connection); this gives ipc and
// rpc the same bound, so the three transports compare at equal concurrency.
import PQueue from 'p-queue'
import type { CallRequest, CallResult, Transport } from '../transport.ts'

export function limitInFlight (transport: Transport, perService: number): Transport {
  const queues = new Map<string, PQueue>()
  function queueFor (service: string): PQueue {
    let queue = queues.get(service)
    if (!queue) {
      queue = new PQueue({ concurrency: perService })
      queues.set(service, queue)
    }
    return queue
  }

  return {
    name: transport.name,
    // With the deadline's signal, p-queue drops a call that is still waiting, and frees a
    // running call's slot when the caller stops waiting rather than when a late answer
    // comes: rpc ignores signals, and a hung or restarting service must not hold every
    // slot until the messaging timeout.
    call: (call: CallRequest, signal: AbortSignal): Promise<CallResult> =>
      queueFor(call.service).add(() => transport.call(call, signal), { signal }),
    async close () {
      for (const queue of queues.values()) queue.clear()
      await transport.close?.()
    }
  }
}
