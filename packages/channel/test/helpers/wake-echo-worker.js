// A worker thread whose mux echoes every data frame of stream 1 (test/wire/wake.test.js).
import { parentPort } from 'node:worker_threads'
import { PortMux } from '../../lib/wire/port-mux.js'

parentPort?.once('message', (port) => {
  const mux = new PortMux(port, { peer: 'test' })
  mux.add(1, {
    referenced: true,
    windowSize: 1 << 20,
    onFrame (payload) { if (typeof payload === 'string') mux.send(1, payload) },
    onMuxLost () {}
  })
})
