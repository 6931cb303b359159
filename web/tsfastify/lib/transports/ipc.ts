// ipc: HTTP over Watt's mesh. `http://<service>.plt.local` is routed by the
// runtime's global dispatcher to the service's worker thread over a MessagePort.
import { request } from 'undici'
import { type CallRequest, type CallResult, type CreateTransport, helloPath } from '../transport.ts'
import { untilAborted } from './abort.ts'
import { verifyHttpAnswer } from './http-answer.ts'

export const create: CreateTransport = ({ name }) => {
  return {
    name,
    async call (call: CallRequest, signal: AbortSignal): Promise<CallResult> {
      // Measured: a mesh request ignores its signal until the downstream sends headers
      // (a 300 ms deadline answered after a 2 s delay). The fan-out races the deadline;
      // racing here as well lets a late answer's body be released instead of left unread.
      const pending = request(`http://${call.service}.plt.local${helloPath(call)}`, { signal })
      const answer = await untilAborted(pending, signal, (late) => { late.body.dump().catch(() => {}) })
      return verifyHttpAnswer(call, answer)
    }
  }
}
