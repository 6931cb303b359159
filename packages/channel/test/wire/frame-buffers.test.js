// http-port's data frames above STRING_LIMIT: cut at FRAME_BYTES, each in a
// FRAME_BYTES buffer that the reader copies out and hands back, so a writer
// fills the same buffers again instead of allocating one per frame.
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { CalleeSocket } from '../../lib/http/callee-socket.js'
import { CallerSocket } from '../../lib/http/caller-socket.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { FRAME_BYTES, STRING_LIMIT } from '../../lib/wire/signals.js'

const sha = (/** @type {Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex')

/** Two sessions on one MessageChannel, one connection (id 1) between them. */
function pair (t, window = undefined) {
  const { port1, port2 } = new MessageChannel()
  const writerSession = new PortMux(port1, { peer: 'reader' })
  const readerSession = new PortMux(port2, { peer: 'writer' })
  const writer = new CallerSocket(writerSession, 1, { application: 'reader', window })
  const reader = new CalleeSocket(readerSession, 1, { application: 'writer', window })
  /** @type {{ bytes: number, bufferBytes: number, transferred: boolean }[]} each data frame the writer posted in a buffer */
  const posted = []
  const post = port1.postMessage.bind(port1)
  port1.postMessage = (message, transfer) => {
    for (let i = 1; i < message.length; i += 2) {
      const payload = message[i]
      if (payload instanceof Uint8Array) posted.push({ bytes: payload.byteLength, bufferBytes: payload.buffer.byteLength, transferred: transfer.includes(payload.buffer) })
    }
    return post(message, transfer)
  }
  t.teardown(() => {
    writer.destroy()
    reader.destroy()
    writerSession.close()
    readerSession.close()
  })
  return { writerSession, readerSession, writer, reader, posted }
}

/** Reads `size` bytes from `reader`. */
async function readBytes (reader, size) {
  const chunks = []
  let got = 0
  while (got < size) {
    const chunk = reader.read()
    if (chunk === null) { await once(reader, 'readable'); continue }
    chunks.push(chunk)
    got += chunk.length
  }
  return Buffer.concat(chunks)
}

/** Counts the frame-sized buffers allocated while `work` runs. */
async function countFrameAllocations (work) {
  const original = Buffer.allocUnsafeSlow
  let count = 0
  Buffer.allocUnsafeSlow = (size) => { if (size === FRAME_BYTES) count++; return original(size) }
  try {
    await work()
  } finally {
    Buffer.allocUnsafeSlow = original
  }
  return count
}

t.test('a large write arrives whole, in frames of at most FRAME_BYTES, each in a FRAME_BYTES buffer', async (t) => {
  const { writer, reader, posted } = pair(t)
  const tail = STRING_LIMIT + 3_000
  const body = randomBytes(FRAME_BYTES * 5 + tail)
  writer.write(body)
  const received = await readBytes(reader, body.length)
  t.equal(sha(received), sha(body), `${body.length} bytes arrive unchanged`)
  t.same(posted.map((f) => f.bytes), [FRAME_BYTES, FRAME_BYTES, FRAME_BYTES, FRAME_BYTES, FRAME_BYTES, tail], 'five full frames, then the rest')
  t.ok(posted.every((f) => f.bufferBytes === FRAME_BYTES && f.transferred), 'each in a transferred FRAME_BYTES buffer')
})

t.test('the reader hands every frame buffer back, and the writer fills those again instead of allocating', async (t) => {
  const { writerSession, writer, reader } = pair(t)
  const first = randomBytes(FRAME_BYTES * 8)
  const firstAllocations = await countFrameAllocations(async () => {
    writer.write(first)
    t.equal(sha(await readBytes(reader, first.length)), sha(first), 'first write arrives')
  })
  t.equal(firstAllocations, 8, 'the first write allocates its 8 frame buffers')
  // hand-backs leave with the reader's next flush
  while (writerSession.spare.length < 8) await new Promise((resolve) => setImmediate(resolve))
  t.equal(writerSession.spare.length, 8, 'all 8 came back to the writer')
  t.ok(writerSession.spare.every((b) => b.byteLength === FRAME_BYTES), 'as FRAME_BYTES buffers')

  const second = randomBytes(FRAME_BYTES * 6 + 1)
  const secondAllocations = await countFrameAllocations(async () => {
    writer.write(second)
    t.equal(sha(await readBytes(reader, second.length)), sha(second), 'second write arrives, in reused buffers')
  })
  t.equal(secondAllocations, 0, 'the second write allocates no frame buffer')

  while (writerSession.spare.length === 0) await new Promise((resolve) => setImmediate(resolve))
  writer.destroy()
  t.equal(writerSession.spare.length, 0, 'a session left without connections lets its spare buffers go')
})

t.test('a writer keeps as many handed-back buffers as its connections\' windows hold: a burst on every connection reuses them all', async (t) => {
  // three default windows (1 MiB, 16 frames each): more frames at once than any fixed few
  const { writerSession, readerSession, writer, reader } = pair(t)
  const links = [{ writer, reader }]
  for (const id of [2, 3]) {
    const link = { writer: new CallerSocket(writerSession, id, { application: 'reader' }), reader: new CalleeSocket(readerSession, id, { application: 'writer' }) }
    t.teardown(() => { link.writer.destroy(); link.reader.destroy() })
    links.push(link)
  }
  const window = writer.windowSize
  const frames = 3 * window / FRAME_BYTES
  // every window full in one turn, as a data-source answering downloads side by side
  const burst = async () => {
    const bodies = links.map(() => randomBytes(window))
    links.forEach((link, i) => link.writer.write(bodies[i]))
    const got = await Promise.all(links.map((link, i) => readBytes(link.reader, bodies[i].length)))
    t.ok(got.every((bytes, i) => sha(bytes) === sha(bodies[i])), 'every body arrives whole')
  }
  // a deadline, not a count of turns: a slow machine may need more of them
  const comeBack = async () => {
    const deadline = Date.now() + 10_000
    while (writerSession.spare.length < frames && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(await countFrameAllocations(burst), frames, 'the first burst allocates the windows\' frames')
  await comeBack()
  t.equal(writerSession.spare.length, frames, `all ${frames} kept: none left to the GC`)
  t.equal(await countFrameAllocations(burst), 0, 'the second burst allocates none')

  await comeBack()
  links[2].writer.destroy()
  t.equal(writerSession.spare.length, frames * 2 / 3, 'a connection closing lets its window\'s worth go')
})

t.test('data not yet read survives the port closing once both sides ended, as on a closed TCP socket', async (t) => {
  const { writerSession, readerSession, writer, reader } = pair(t)
  const body = randomBytes(FRAME_BYTES * 4 + 5)
  writer.end(body)
  reader.end()
  while (!(reader.finReceived && reader.finSent)) await new Promise((resolve) => setImmediate(resolve))
  t.ok(reader.waiting.length > 0, 'more arrived than a high-water mark: the rest waits to be read')
  writerSession.close()
  while (!readerSession.closed) await new Promise((resolve) => setImmediate(resolve))
  t.notOk(reader.destroyed, 'the connection outlives its port while data waits')
  t.equal(sha(await readBytes(reader, body.length)), sha(body), 'every byte is still read')
  reader.resume()
  await once(reader, 'close')
  t.ok(reader.readableEnded, 'it ended before it closed')
})

t.test('a reader that asks for more than is buffered gets it (read(n)), and no read returns more than a mark', async (t) => {
  const { writer, reader } = pair(t)
  const head = Buffer.from('0123456789')
  writer.write(head)
  await once(reader, 'readable')
  t.equal(reader.readableLength, head.length)
  // A length-prefixed parser's way: read(n) until n bytes are there. The next frame
  // is a whole FRAME_BYTES, more than the mark leaves room for beside the 10 bytes.
  t.equal(reader.read(100), null, 'not yet 100 bytes')
  const body = randomBytes(3 * FRAME_BYTES)
  writer.write(body)
  // Polled on a timer: a 'readable' listener added while bytes are buffered fires at
  // once, and awaiting it in a loop would never let the writer's frames out.
  const deadline = Date.now() + 10_000
  const poll = async (/** @type {number | undefined} */ size) => {
    for (;;) {
      const chunk = reader.read(size)
      if (chunk !== null || Date.now() > deadline) return chunk
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const first = await poll(100)
  t.ok(first, 'the 100 bytes arrived')
  const chunks = first ? [first] : []
  let got = first?.length ?? 0
  let largest = 0
  while (got > 0 && got < head.length + body.length) {
    const chunk = await poll()
    if (chunk === null) break
    largest = Math.max(largest, chunk.length)
    chunks.push(chunk)
    got += chunk.length
  }
  t.equal(sha(Buffer.concat(chunks)), sha(Buffer.concat([head, body])), 'every byte, in order')
  t.ok(largest > 0 && largest <= reader.readableHighWaterMark, `each read at most a mark (largest ${largest})`)
})

t.test('the port keeps the thread alive exactly while one of its connections is referenced', async (t) => {
  // undici refs a connection per request and unrefs it when idle; the session counts them
  const { port1, port2 } = new MessageChannel()
  const session = new PortMux(port1, { peer: 'peer' })
  const peer = new PortMux(port2, { peer: 'caller' })
  const sockets = [1, 2, 3].map((id) => new CallerSocket(session, id, { application: 'peer' }))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    session.close()
    peer.close()
  })
  t.equal(port1.hasRef(), true, 'new connections are referenced')
  for (const socket of sockets) socket.unref()
  t.equal(port1.hasRef(), false, 'all idle: the port lets the thread exit')
  sockets[0].unref()
  sockets[1].ref()
  t.equal(port1.hasRef(), true, 'one in use (an unref twice counts once)')
  sockets[1].ref()
  sockets[1].unref()
  t.equal(port1.hasRef(), false, 'a ref twice counts once as well')
  sockets[2].ref()
  sockets[2].destroy()
  await once(sockets[2], 'close')
  t.equal(port1.hasRef(), false, 'a referenced connection that closes no longer holds the port')
  sockets[2].ref()
  t.equal(port1.hasRef(), false, 'nor does it after it closed')
  sockets[0].ref()
  t.equal(port1.hasRef(), true)
})
