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

t.test('the report covers the profiled applications only (--apps), and all of them by default', async (t) => {
  const { profileReport } = await import('../../bench/profile/report.js')
  const thread = (us) => ({ busyUsPerCall: us, utilisation: 0.5, categoriesUsPerCall: { GC: us }, top: [{ name: 'postMessage :0', usPerCall: us }] })
  const result = (threads) => ({
    machine: { cpuModel: 'test CPU', cores: 2, memoryBytes: 2 ** 30, os: 'test OS', node: 'v24', versions: {}, git: { commit: null, dirty: false } },
    startedAt: '2026-11-27T00:00:00.000Z',
    config: { duration: 1, connections: 10, pipelining: 1, fanout: 4, size: 64, workers: 2 },
    runs: [{ target: 'mesh-port', ok: true, failures: [], requestsPerSec: 100, cpuProfile: { downstreamCalls: 400, windowS: 1, threads } }]
  })
  const entryOnly = profileReport(result({ tsfastify: thread(20) }))
  t.match(entryOnly.intro, /in the workers of tsfastify only \(--apps/, 'the intro says who was profiled')
  t.equal(entryOnly.sections[0].title, 'CPU per downstream call, profiled threads (tsfastify)')
  t.same(entryOnly.sections[1].table.headers, ['category', 'tsfastify'], 'one column: the entry')
  t.same(entryOnly.sections[0].table.rows.find((row) => row[0].startsWith('total')), ['total (profiled threads)', '20.0'])
  const all = profileReport(result({ tsfastify: thread(20), fastify2: thread(1), node3: thread(2), type1: thread(3), type4: thread(4) }))
  t.equal(all.sections[0].title, 'CPU per downstream call, all threads')
  t.same(all.sections[0].table.rows.find((row) => row[0].startsWith('total')), ['total (Watt threads)', '30.0'])
  t.match(all.intro, /in every worker/)
  const servicesOnly = profileReport(result({ node3: thread(2) }))
  t.notMatch(servicesOnly.sections[1].text, /Heaviest functions of the entry/, 'no entry line without the entry')
})
