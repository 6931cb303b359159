import t from 'tap'
import { categoryOf, selfTimeInWindow } from '../../bench/profile/cpuprofile.js'

const frame = (functionName, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' })

t.test('categories follow the call frame', async (t) => {
  t.equal(categoryOf(frame('(garbage collector)')), 'GC')
  t.equal(categoryOf(frame('postMessage')), 'mesh / MessagePort')
  t.equal(categoryOf(frame('dispatch', 'file:///x/node_modules/undici/lib/dispatcher/client.js')), 'undici (HTTP client)')
  t.equal(categoryOf(frame('parserOnIncoming', 'node:_http_server')), 'node:http server')
  t.equal(categoryOf(frame('checkHelloBody', 'file:///x/lib/contract.js')), 'this project')
})

t.test('self time counts only samples inside the window, idle apart', async (t) => {
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)') },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('postMessage') },
      { id: 4, callFrame: frame('(garbage collector)') }
    ],
    startTime: 1000,
    endTime: 2000,
    // sample times: 1100, 1200, 1300, 1400, 1500; each weighs the gap to the next (100)
    samples: [3, 3, 4, 2, 3],
    timeDeltas: [100, 100, 100, 100, 100]
  }
  const inside = selfTimeInWindow(profile, { fromUs: 1150, toUs: 1450 })
  t.same(inside.categories, { 'mesh / MessagePort': 100, GC: 100 }, 'samples at 1200 and 1300 only')
  t.equal(inside.busyUs, 200)
  t.equal(inside.idleUs, 100)
  t.equal(inside.top[0].us, 100)
})

t.test('several profiles (one application\'s workers) are summed', async (t) => {
  const profile = (startTime, samples) => ({
    nodes: [
      { id: 1, callFrame: frame('(idle)') },
      { id: 2, callFrame: frame('postMessage') },
      { id: 3, callFrame: frame('parserOnIncoming', 'node:_http_server') }
    ],
    startTime,
    endTime: startTime + 1000,
    samples,
    timeDeltas: samples.map(() => 100)
  })
  // worker 0: postMessage at 1100 and 1200 (the last sample weighs nothing); worker 1: idle, then the parser
  const both = selfTimeInWindow([profile(1000, [2, 2, 1]), profile(1000, [1, 3, 3, 3])], { fromUs: 0, toUs: 5000 })
  t.equal(both.busyUs, 400)
  t.equal(both.idleUs, 100)
  t.same(both.categories, { 'mesh / MessagePort': 200, 'node:http server': 200 })
  t.same(both.top.map((f) => f.us), [200, 200], 'each function once, its workers\' time added')
})
