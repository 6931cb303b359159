// The realtime suite's checks reject what they must: an echo that is not the
// message sent (text, cut, another socket's, an earlier one, an altered byte),
// an SSE stream with a lost, repeated, reordered or corrupt event or no end,
// and edge's stats with any mismatch, broken socket or refused open fail the
// run with the reason. The drop-in's counter must show the calls on mesh-port
// and no drop-in on the other paths.
import t from 'tap'
import { echoMismatch, echoTemplate, stampEcho } from '../../bench/realtime/shared/echo-payload.js'
import { eventText, paddingOf } from '../../bench/realtime/shared/sse-event.js'
import { SequenceCheck } from '../../bench/realtime/sequence-check.js'
import { echoFailures } from '../../bench/realtime/ws-echo.js'
import { dropInFailures } from '../../bench/realtime/path-check.js'

t.test('an echo is right only when it is the message sent, byte for byte', async (t) => {
  const sent = stampEcho(echoTemplate(3, 64), 7)
  const copy = Buffer.from(sent)
  t.equal(echoMismatch(copy.buffer.slice(copy.byteOffset, copy.byteOffset + copy.length), sent), null, 'the same bytes, as an ArrayBuffer')
  t.equal(echoMismatch(new Uint8Array(copy), sent), null, 'the same bytes, as a view')
  t.match(echoMismatch(sent.toString('latin1'), sent), /a text message/)
  t.match(echoMismatch(copy.subarray(0, 63), sent), /63 bytes instead of 64/)
  t.match(echoMismatch(stampEcho(echoTemplate(4, 64), 7), sent), /socket 4's message 7 on socket 3/)
  t.match(echoMismatch(stampEcho(echoTemplate(3, 64), 6), sent), /message 6 where 7 was expected/, 'an earlier echo again')
  const altered = Buffer.from(sent)
  altered[40] ^= 1
  t.match(echoMismatch(altered, sent), /message 7: byte 40 is/)
  t.match(echoMismatch({}, sent), /not binary data/)
  t.throws(() => echoTemplate(0, 4), RangeError, 'no room for the header')
  const big = stampEcho(echoTemplate(99, 16384), 123456)
  t.equal(echoMismatch(Buffer.from(big), big), null, '16 KiB')
})

/** Events as the client parses them: id and data. */
const event = (seq, size = 16) => {
  const text = eventText(seq, 1000 + seq, size)
  return { id: String(seq), data: JSON.parse(/data: (.*)/.exec(text)[1]) }
}

/** @param {number[]} seqs @param {number | null} [endCount] */
function checked (seqs, endCount = seqs.length) {
  const check = new SequenceCheck(16)
  for (const seq of seqs) { const e = event(seq); check.accept(e.id, e.data) }
  if (endCount != null) check.end(endCount)
  return check
}

t.test('an SSE stream passes only with every event once, in order, and its end', async (t) => {
  t.equal(checked([0, 1, 2, 3]).verdict(), null, 'all of them in order')
  const lost = checked([0, 1, 3], 4)
  t.equal(lost.lost, 1)
  t.match(lost.verdict(), /received 3 events, the producer sent 4; 1 lost/)
  const tail = checked([0, 1], 4)
  t.equal(tail.lost, 2, 'the last ones missing')
  t.match(tail.verdict(), /2 lost/)
  const twice = checked([0, 1, 1, 2], 3)
  t.equal(twice.duplicated, 1)
  t.match(twice.verdict(), /1 duplicated.*event 1 again/)
  const swapped = checked([0, 2, 1, 3])
  t.equal(swapped.outOfOrder, 1)
  t.equal(swapped.lost, 0, 'the late one is not lost')
  t.match(swapped.verdict(), /1 out of order/)
  t.match(checked([0, 1], null).verdict(), /no end event after 2 events/)

  const corrupt = new SequenceCheck(16)
  const e = event(0)
  corrupt.accept(e.id, { ...e.data, pad: paddingOf(1, 16) })
  corrupt.accept('7', event(1).data)
  corrupt.accept('2', null)
  corrupt.end(3)
  t.equal(corrupt.corrupt, 3, 'a wrong padding, an id that is not the data\'s, no data')
  t.match(corrupt.verdict(), /3 corrupt/)
})

/** Edge's stats for a clean run. */
const clean = { url: 'ws://chat.plt.local/echo', sockets: 10, size: 64, connected: 10, roundTrips: 5000, mismatches: 0, mismatchExamples: [], errors: [], brokenSockets: 0, stalled: 0 }

t.test('edge\'s echo stats: any mismatch, broken, stalled or refused socket fails the run', async (t) => {
  t.same(echoFailures(clean), [])
  t.match(echoFailures({ ...clean, mismatches: 2, mismatchExamples: [{ text: 'message 6 where 7 was expected', count: 2 }] }), [/2 echo\(es\) differed from the message sent: message 6 where 7 was expected \(×2\)/])
  t.match(echoFailures({ ...clean, brokenSockets: 1, errors: [{ text: 'closed 1006 during the run', count: 1 }] }), [/1 socket\(s\) failed during the run: closed 1006/])
  t.match(echoFailures({ ...clean, stalled: 3 }), [/3 socket\(s\) still waited/])
  t.match(echoFailures({ ...clean, roundTrips: 0 }), [/no echo in the measured window/])
  const refused = echoFailures({ url: clean.url, sockets: 10, size: 64, connected: 0, connectErrors: [{ text: 'error event, message "", then close 1006 before open', count: 10 }] })
  t.equal(refused.length, 1)
  t.match(refused[0], /10 of 10 WebSocket\(s\) to ws:\/\/chat\.plt\.local\/echo did not open: error event, message "", then close 1006 before open \(×10\)/)
  const lost = echoFailures({ url: clean.url, sockets: 2, size: 64, connected: 0, connectErrors: [{ text: 'x', count: 2 }], chatSaw: { upgrades: 0, plainRequests: 2 } })
  t.match(lost[0], /chat's server saw 0 upgrade\(s\) and 2 plain request\(s\) of \/echo \(answered 426: the upgrade did not reach it\)/, 'where the upgrade was lost')
})

t.test('the drop-in\'s counter: every call over http-port on mesh-port, no drop-in elsewhere', async (t) => {
  const counts = (mesh, httpPort) => ({ chat: { mesh, httpPort: { 0: httpPort }, retried: {} } })
  t.same(dropInFailures('mesh-port', counts(0, 10), 'WebSocket upgrades'), [])
  t.match(dropInFailures('mesh-port', counts(10, 0), 'WebSocket upgrades'), [/left 10 of edge's calls \(WebSocket upgrades\) to Watt's mesh.*chat 10/])
  t.match(dropInFailures('mesh-port', {}, 'SSE streams'), [/shows no call \(SSE streams\) over http-port/])
  t.same(dropInFailures('tcp', {}, 'SSE streams'), [])
  t.match(dropInFailures('ipc', counts(0, 3), 'SSE streams'), [/counted 3 call\(s\) on the ipc path/])
  t.same(dropInFailures('mesh-port', undefined, 'SSE streams'), [], 'no scrape: the run\'s other failures say why')
})
