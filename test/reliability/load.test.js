// Load, short form: the original write-up's profile (100 connections,
// pipelining 10) on every transport, every body verified: zero non-2xx, errors
// and timeouts. (The write-up's TCP route answered 5xx to 24% of this load.)
import t from 'tap'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { loadUnderSeedProfile } from '../../bench/reliability/scenarios/load.js'

const runtime = await startPrivateRuntime()
t.teardown(() => runtime.stop())

for (const transport of ['ipc', 'tcp', 'rpc', 'direct']) {
  t.test(`${transport} holds c100 p10 without a single bad answer`, async (t) => {
    const { load, loadProfile } = await loadUnderSeedProfile(runtime, { transport, duration: 5 })
    t.match(loadProfile, { connections: 100, pipelining: 10 })
    t.ok(load.status['2xx'] > 0, `${load.status['2xx']} verified answers`)
    t.equal(load.status.non2xx, 0, `non-2xx ${JSON.stringify(load.status.byCode)}`)
    t.equal(load.errors, 0, 'connection errors')
    t.equal(load.timeouts, 0, 'timeouts')
    t.equal(load.mismatches, 0, 'bodies that differ from the expected one')
  })
}
