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
