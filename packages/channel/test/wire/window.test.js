// The credit window every stream (HTTP connection) uses.
import t from 'tap'
import { StreamWindow, windowOption } from '../../lib/wire/window.js'

t.test('credit granted back never exceeds what was sent, and never is zero or fractional', async (t) => {
  const flow = new StreamWindow(1000)
  t.equal(flow.credit, 1000)
  flow.credit -= 600
  t.equal(flow.grant(600), true)
  t.equal(flow.credit, 1000)
  t.equal(flow.grant(1), false, 'more than was sent: a broken peer')
  flow.credit -= 10
  t.equal(flow.grant(0), false)
  t.equal(flow.grant(-3), false)
  t.equal(flow.grant(2.5), false)
  t.equal(flow.credit, 990, 'a refused grant changes nothing')
})

t.test('data beyond the window is refused; credit goes back per half window, or at once when eager', async (t) => {
  const flow = new StreamWindow(1000)
  t.equal(flow.receive(400), true)
  t.equal(flow.returnable(), 0, 'under half a window: nothing yet')
  t.equal(flow.receive(300), true)
  t.equal(flow.returnable(200), 500, 'what was consumed, not what is still buffered')
  t.equal(flow.unreturned, 200)
  t.equal(flow.receive(801), false, 'past the window')
  t.equal(flow.receive(800), true, 'up to the window')
  t.equal(flow.returnable(1000), 0, 'all still buffered: nothing consumed')
  t.equal(flow.returnable(990, true), 10, 'eager: any consumed byte')
})

t.test('a moved request starts over with what it already sent in flight', async (t) => {
  const flow = new StreamWindow(1000)
  flow.credit = 0
  flow.unreturned = 50
  flow.restart(300)
  t.equal(flow.credit, 700)
  t.equal(flow.unreturned, 0)
})

t.test('a window option is checked: zero would leave a writer waiting for good', async (t) => {
  t.equal(windowOption(undefined, 4096), 4096, 'the default when unset')
  t.equal(windowOption(65536, 4096), 65536)
  for (const bad of [0, -1, 1023, 1.5, '65536', null, Infinity, NaN]) {
    t.throws(() => windowOption(bad, 4096), { code: 'WATT_CHANNEL_INVALID_OPTION', message: /window must be an integer of at least 1024 bytes/ }, `window ${String(bad)}`)
  }
})
