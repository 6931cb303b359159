// The reliability check's parts that need no runtime: reading sockets from
// /proc, parsing raw HTTP answers, judging fuzz answers and fault observations,
// and the fuzz generator's determinism and coverage.
import t from 'tap'
import { createServer } from 'node:net'
import { once } from 'node:events'
import { decodeAddress, hasProcFs, listeningSockets, parseInetTable, parseUnixTable } from '../../bench/reliability/os-sockets.js'
import { parseResponse } from '../../bench/reliability/fuzz/raw-http.js'
import { judgeAnswer } from '../../bench/reliability/fuzz/judge.js'
import { generateCases } from '../../bench/reliability/fuzz/cases.js'
import { errorWindow } from '../../bench/reliability/faults/window.js'
import { judge } from '../../bench/reliability/faults/observer.js'
import { leakRunFailures } from '../../bench/reliability/scenarios/leaks.js'
import { OTHER_WORKER_SHARE, otherWorkerFloor } from '../../bench/reliability/scenarios/worker-faults.js'
import { WORKER_FAULTS } from '../../bench/reliability/faults/one-worker.js'
import { availableTransports } from '../../lib/topology.js'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'

t.test('kernel socket tables decode to addresses and ports', async (t) => {
  t.equal(decodeAddress('0100007F', 4), '127.0.0.1')
  t.equal(decodeAddress('00000000', 4), '0.0.0.0')
  t.equal(decodeAddress('00000000000000000000000001000000', 6), '::1')
  t.equal(decodeAddress('0000000000000000FFFF00000100007F', 6), '::ffff:7f00:1')
  t.equal(decodeAddress('00000000000000000000000000000000', 6), '::')
  const tcp = parseInetTable([
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:0BE3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0',
    '   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 67890 1 0000000000000000 100 0 0 10 0'
  ].join('\n'), 4)
  t.same(tcp, [
    { address: '127.0.0.1', port: 3043, state: '0A', inode: 12345 },
    { address: '0.0.0.0', port: 8080, state: '0A', inode: 67890 }
  ])
  const unix = parseUnixTable([
    'Num       RefCount Protocol Flags    Type St Inode Path',
    '0000000000000000: 00000002 00000000 00010000 0001 01 20223 /tmp/platformatic/runtimes/1/socket',
    '0000000000000000: 00000003 00000000 00000000 0001 03 20224'
  ].join('\n'))
  t.same(unix, [{ inode: 20223, listening: true, path: '/tmp/platformatic/runtimes/1/socket' }, { inode: 20224, listening: false, path: '' }])
})

t.test('the OS view finds a listener this process opens, with its address', { skip: !hasProcFs() && 'needs /proc' }, async (t) => {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
  const mine = listeningSockets([process.pid]).filter((s) => s.port === port)
  t.equal(mine.length, 1, 'seen once')
  t.equal(mine[0].address, '127.0.0.1')
  t.equal(mine[0].proto, 'tcp')
})

t.test('raw answers parse: content-length, chunked, 100-continue, incomplete', async (t) => {
  const plain = parseResponse(Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"a":"b","c"}'), false)
  t.match(plain, { status: 404, body: '{"a":"b","c"}', complete: true, headers: { 'content-type': 'application/json' } })
  const chunked = parseResponse(Buffer.from('HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n'), false)
  t.match(chunked, { status: 400, body: 'abcde', complete: true })
  const continued = parseResponse(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), false)
  t.match(continued, { status: 200, body: 'ok', complete: true })
  t.equal(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le'), false), null, 'headers not complete yet')
  t.match(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), false), { complete: false })
  t.match(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n'), true), { complete: true, body: '' }, 'HEAD has no body')
})

t.test('fuzz judging: 5xx, JSON 4xx, hangs and crashes', async (t) => {
  const entry = { id: 1, surface: 'entry', kind: 'query', method: 'GET', bytes: Buffer.alloc(0), deliberateFault: false }
  const json = (/** @type {number} */ status, /** @type {object} */ body) => ({ outcome: /** @type {const} */ ('answered'), status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ms: 1 })
  t.equal(judgeAnswer(entry, json(400, { statusCode: 400, error: 'Bad Request', message: 'x' })), null)
  t.match(judgeAnswer(entry, { outcome: 'answered', status: 400, headers: {}, body: '', ms: 1 }), /without a JSON error body/)
  t.match(judgeAnswer(entry, json(431, { statusCode: 400, message: 'wrong code in body' })), /without a JSON error body/)
  t.equal(judgeAnswer({ ...entry, method: 'HEAD' }, { outcome: 'answered', status: 404, headers: {}, body: '', ms: 1 }), null, 'HEAD answers have no body')
  t.match(judgeAnswer(entry, json(500, { statusCode: 500, message: 'boom' })), /5xx nobody asked for/)
  t.match(judgeAnswer(entry, json(502, { statusCode: 502, service: 'node3' })), /5xx nobody asked for/, 'a 502 without a fault is not deliberate')
  t.equal(judgeAnswer({ ...entry, deliberateFault: true }, json(502, { statusCode: 502, service: 'node3', message: 'm' })), null)
  t.match(judgeAnswer({ ...entry, deliberateFault: true }, json(504, { statusCode: 504, service: 'nobody' })), /naming the service/)
  t.match(judgeAnswer(entry, { outcome: 'timeout', ms: 9000 }), /hung/)
  t.match(judgeAnswer(entry, { outcome: 'refused', ms: 1 }), /crash/)
  t.equal(judgeAnswer(entry, { outcome: 'closed', ms: 1 }), null, 'a dropped connection is counted, not failed')
})

t.test('the fuzz generator is seeded, varied and reaches every surface', async (t) => {
  const a = generateCases({ count: 1000, seed: 42 })
  const b = generateCases({ count: 1000, seed: 42 })
  const c = generateCases({ count: 1000, seed: 43 })
  t.equal(a.length, 1000)
  t.ok(a.every((x, i) => x.bytes.equals(b[i].bytes)), 'same seed, same bytes')
  t.notOk(a.every((x, i) => x.bytes.equals(c[i].bytes)), 'another seed, other bytes')
  const kinds = new Set(a.map((x) => x.kind))
  for (const kind of ['query', 'huge-value', 'oversized-url', 'unknown-path', 'method', 'oversized-headers', 'bad-headers', 'bad-request-line', 'fault']) t.ok(kinds.has(kind), kind)
  const surfaces = new Set(a.map((x) => x.surface))
  for (const surface of ['entry', ...DOWNSTREAM_SERVICES]) t.ok(surfaces.has(surface), surface)
  for (const route of availableTransports()) t.ok(a.some((x) => x.bytes.includes(`/tsfastify/${route}`)), route)
  t.ok(a.some((x) => x.bytes.length > 16 * 1024), 'some go past the 16 KiB header limit')
  t.ok(a.some((x) => !/^(GET|HEAD) /.test(x.bytes.toString('latin1'))), 'not only GET')
  // mesh-port's runtime: the entry's cases on its route alone (unknown paths aside), the services' ports as before
  const meshPort = generateCases({ count: 1000, seed: 42, routes: ['/tsfastify/mesh-port'] })
  const entryRoutes = new Set(meshPort.filter((x) => x.surface === 'entry' && x.kind === 'query').map((x) => x.bytes.toString('latin1').split(' ')[1].split('?')[0]))
  t.same([...entryRoutes], ['/tsfastify/mesh-port'], 'entry cases go to the route given')
  t.same([...new Set(meshPort.map((x) => x.surface))].sort(), ['entry', ...DOWNSTREAM_SERVICES].sort(), 'every surface still reached')
})

t.test('fault observations become a window, a recovery and named errors', async (t) => {
  const ok = (/** @type {number} */ at) => ({ at, latencyMs: 5, status: 200, verdict: /** @type {const} */ ('verified') })
  const bad = (/** @type {number} */ at) => ({ at, latencyMs: 40, status: 502, verdict: /** @type {const} */ ('named'), detail: 'node3 could not be reached: connect ECONNREFUSED 127.0.0.1:4567 over tcp' })
  const window = errorWindow([ok(100), bad(1200), bad(1500), bad(2600), ok(2700), ok(3000)], { injectedAt: 1000, backAt: 2500 })
  t.match(window, { errors: 3, byStatus: { 502: 3 }, firstErrorMs: 200, errorWindowMs: 1400, recoveryMs: 100, maxErrorLatencyMs: 40, wrongAnswers: 0, servedAgain: true })
  t.same(window.errorSamples, ['node3 could not be reached: connect ECONNREFUSED 127.0.0.1:PORT over tcp'])
  const none = errorWindow([ok(100), ok(200)], { injectedAt: 50, backAt: 60 })
  t.match(none, { errors: 0, errorWindowMs: 0, recoveryMs: 0, servedAgain: true })
  t.match(errorWindow([ok(100), bad(300)], { injectedAt: 50, backAt: 200 }), { servedAgain: false, recoveryMs: 100 })
  t.match(errorWindow([ok(100), { ...ok(200), latencyMs: 70 }, bad(300)], { injectedAt: 50, backAt: 250 }), { maxOkLatencyMs: 70, okLatencyP99Ms: 70 }, 'the slowest verified answer, not an error\'s')

  const expected = '{"ok":1}'
  t.same(judge(200, expected, { expected, transport: 'tcp', service: 'node3' }), { verdict: 'verified' })
  t.match(judge(200, '{"ok":2}', { expected, transport: 'tcp', service: 'node3' }), { verdict: 'wrong' })
  t.match(judge(502, JSON.stringify({ statusCode: 502, service: 'node3', transport: 'tcp', message: 'm' }), { expected, transport: 'tcp', service: 'node3' }), { verdict: 'named' })
  t.match(judge(504, JSON.stringify({ statusCode: 504, service: 'type1, node3', transport: 'tcp', message: 'm' }), { expected, transport: 'tcp', service: 'node3' }), { verdict: 'named' })
  t.match(judge(502, JSON.stringify({ statusCode: 502, service: 'type1', transport: 'tcp', message: 'm' }), { expected, transport: 'tcp', service: 'node3' }), { verdict: 'wrong' })
  t.match(judge(500, '{}', { expected, transport: 'tcp', service: 'node3' }), { verdict: 'wrong' })
})

t.test('a leak run fails on a bad answer, not on a short run that ended before its first answer', async (t) => {
  const load = (/** @type {object} */ over) => ({ totalRequests: 40, errors: 0, timeouts: 0, mismatches: 0, status: { '2xx': 40, non2xx: 0, byCode: { 200: 40 } }, ...over })
  const after = 'one answer after the run: 200 {"transport":"port"}'
  t.same(leakRunFailures(load({})), [], 'a clean run')
  t.same(leakRunFailures(load({ totalRequests: 0, status: { '2xx': 0, non2xx: 0, byCode: {} }, answerAfterFailure: '200 {"transport":"port"}' })), [], 'no answer within the run, and one afterwards: still no failure')
  t.same(leakRunFailures(load({ status: { '2xx': 38, non2xx: 2, byCode: { 200: 38, 502: 2 } }, answerAfterFailure: '200 {"transport":"port"}' })), ['2 non-2xx (2×502)', after], 'a non-2xx fails it, with the answer afterwards')
  t.same(leakRunFailures(load({ mismatches: 1 })), ['1 body mismatches'], 'so does a wrong body')
})

t.test('a hang of one worker of two holds the other to a share of the load once the call timeout has passed', async (t) => {
  // as measured against the route before stall detection: 4,157 calls/s before a 5,004 ms hang
  const floor = otherWorkerFloor(WORKER_FAULTS.hang, { ratePerS: 4157, faultMs: 5004, callTimeoutMs: 3000 })
  t.equal(floor?.minCalls, Math.floor(OTHER_WORKER_SHARE * 4157 * 2.004), 'the share of the rate over the time after the call timeout')
  t.match(floor?.why, /4157 calls\/s before it, over the 2004 ms after the call timeout/)
  t.ok((floor?.minCalls ?? 0) > 218, 'the 218 calls that route\'s other worker served fail the check')
  t.equal(otherWorkerFloor(WORKER_FAULTS.hang, { ratePerS: 4157, faultMs: 2000, callTimeoutMs: 3000 })?.minCalls, 0, 'a hang shorter than the call timeout asks for nothing more than some calls')
  t.equal(otherWorkerFloor(WORKER_FAULTS.crash, { ratePerS: 4157, faultMs: 1200, callTimeoutMs: 3000 }), null, 'a crash: only "some calls"')
  t.equal(otherWorkerFloor(WORKER_FAULTS.restart, { ratePerS: 4157, faultMs: 1500, callTimeoutMs: 3000 }), null, 'a restart: only "some calls"')
})

t.test('the worker faults include restarts after a crash, during a hang and back to back, each lossless, and the full check runs them', async (t) => {
  const { resolveSettings } = await import('../../bench/reliability/plan.js')
  for (const kind of ['restart', 'crash-then-restart', 'restart-in-hang', 'restart-twice']) {
    t.equal(WORKER_FAULTS[kind]?.lossless, true, `${kind}: no request may fail`)
  }
  t.notOk(WORKER_FAULTS.crash.lossless, 'a crash may lose the POSTs in flight on the dead worker')
  t.equal(WORKER_FAULTS['crash-then-restart'].restartsAdded, 2, 'the crash and the restart each count')
  const full = resolveSettings({ scenarios: ['faults'], quick: false, callTimeoutMs: 3000 })
  t.same(full.workerFaults, Object.keys(WORKER_FAULTS), 'npm run check:reliability runs every worker fault')
})

t.test('the scaler scenario: one case over Watt\'s mesh and one over the drop-in, in the full check', async (t) => {
  const { casesFrom, resolveSettings, SCENARIOS } = await import('../../bench/reliability/plan.js')
  const { SCALER_PATHS } = await import('../../bench/reliability/scenarios/scaler.js')
  t.ok(SCENARIOS.includes('scaler'), 'npm run check:reliability runs it by default')
  const cases = casesFrom(resolveSettings({ scenarios: ['scaler'], quick: true, callTimeoutMs: 3000 }))
  t.same(cases.map((kase) => kase.path), [...SCALER_PATHS], 'one case per path, the quick form too')
  t.same(SCALER_PATHS, ['mesh', 'drop-in'])
  t.ok(cases.every((kase) => kase.profile === 'scaler' && !kase.transport), 'no transport: run.js starts no lab runtime for it')
  t.match(cases.map((kase) => kase.target), [/over Watt's mesh \(ipc\)$/, /over the drop-in \(mesh-port\)$/])
})

t.test('the caller-scaler scenario: the front scaled 3→1, one case per path, in the full check', async (t) => {
  const { casesFrom, resolveSettings, SCENARIOS } = await import('../../bench/reliability/plan.js')
  t.ok(SCENARIOS.includes('caller-scaler'), 'npm run check:reliability runs it by default')
  const cases = casesFrom(resolveSettings({ scenarios: ['caller-scaler'], quick: true, callTimeoutMs: 3000 }))
  t.same(cases.map((kase) => kase.path), ['mesh', 'drop-in'], 'one case per path, the quick form too')
  t.ok(cases.every((kase) => kase.profile === 'caller-scaler' && !kase.transport), 'no transport: run.js starts no lab runtime for it')
  t.match(cases.map((kase) => kase.target), [/^front \(caller\) 3→1 .*over Watt's mesh \(ipc\)$/, /over the drop-in \(mesh-port\)$/])
})
