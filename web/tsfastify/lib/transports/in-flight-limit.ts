// At most N calls in flight to each service; the rest wait in a FIFO queue
// whose wait counts against the call's deadline.
//
// Why: unbounded, 1,000 client requests put ~4,000 mesh calls in flight, and the
// entry then worked off their answers in event-loop turns of about a second. Node 24's
// libuv accepts one connection per turn, so new clients waited in the kernel's accept
// queue for tens of seconds (measured: accept queue 51 deep, draining ~2 per second).
// tcp was bounded all along by its pool (one call per connection); this gives ipc and
// rpc the same bound, so the three transports compare at equal concurrency.
//
// fastq, not p-queue: this sits on the measured path, and p-queue cost ~11 µs per
// call in the entry's CPU profile (about 10% of an rpc call).
import fastq from 'fastq'
import type { CallRequest, CallResult, Transport } from '../transport.ts'
import { untilAborted } from './abort.ts'

interface Queued {
  call: CallRequest
  signal: AbortSignal
}

export function limitInFlight (transport: Transport, perService: number): Transport {
  // A call whose deadline passed while it waited never starts. A running call frees its
  // slot when the caller stops waiting, not when a late answer comes: rpc ignores
  // signals, and a hung or restarting service must not hold every slot until the
  // messaging timeout.
  const worker = async ({ call, signal }: Queued): Promise<CallResult> => {
    signal.throwIfAborted()
    return untilAborted(transport.call(call, signal), signal)
  }
  const queues = new Map<string, fastq.queueAsPromised<Queued, CallResult>>()
  function queueFor (service: string): fastq.queueAsPromised<Queued, CallResult> {
    let queue = queues.get(service)
    if (!queue) {
      queue = fastq.promise(worker, perService)
      queues.set(service, queue)
    }
    return queue
  }

  return {
    name: transport.name,
    call: (call: CallRequest, signal: AbortSignal): Promise<CallResult> => queueFor(call.service).push({ call, signal }),
    async close () {
      for (const queue of queues.values()) queue.abort() // waiting callers are rejected, not left hanging
      await transport.close?.()
    }
  }
}
