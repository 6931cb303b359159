// The runtime's workers as the drop-in follows them (workers.js): the broadcast only says when
// an application's workers changed (once per change, by their threads) and which applications
// exist; the started workers themselves are asked of the runtime's ITC at each look.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { BroadcastChannel } from 'node:worker_threads'
import { WorkerDirectory } from '../../lib/mesh-port/workers.js'
import { GET_WORKERS, WORKERS_BROADCAST } from '../../lib/watt/itc.js'

const runtime = new BroadcastChannel(WORKERS_BROADCAST)
t.teardown(() => runtime.close())
/** @type {string[]} */
const changed = []
const directory = new WorkerDirectory((application) => changed.push(application))

let sentinel = 0
/**
 * Posts the runtime's broadcast and waits until it was read: a sentinel application posted after
 * it is a change the directory reports, and posts on one channel arrive in order.
 * @param {unknown} all
 */
async function broadcast (all) {
  runtime.postMessage(all)
  const mark = `sentinel-${++sentinel}`
  runtime.postMessage(new Map([[mark, [{ thread: sentinel }]]]))
  for (let i = 0; i < 400 && !changed.includes(mark); i++) await sleep(5)
  const at = changed.indexOf(mark)
  if (at === -1) throw new Error('the broadcast never arrived')
  changed.splice(at, 1)
}

t.test('each application whose workers changed is told once per change', async (t) => {
  t.notOk(directory.named('front'), 'nothing known before a broadcast')
  await broadcast(new Map([['front', [{ thread: 1 }]], ['db', []]]))
  t.same(changed.splice(0), ['front', 'db'], 'first sight of each is a change')
  t.ok(directory.named('front'))
  t.ok(directory.named('db'), 'an application with no worker started is still named')
  t.notOk(directory.named('late'))
  await broadcast(new Map([['front', [{ thread: 1 }]], ['db', []]]))
  t.same(changed.splice(0), [], 'the same threads: no change')
  await broadcast(new Map([['front', [{ thread: 1 }, { thread: 7 }]], ['db', []], ['late', [{ thread: 9 }]]]))
  t.same(changed.splice(0), ['front', 'late'], 'a worker more, and an application added at runtime')
  t.ok(directory.named('late'))
  await broadcast(new Map([['front', [{ thread: 7 }, { thread: 1 }]]]))
  t.same(changed.splice(0), ['front'], 'the same threads in another order: a change (the list is kept as it came)')
})

t.test('what is not a Map of workers is ignored', async (t) => {
  await broadcast({ front: [] })
  await broadcast('restart')
  await broadcast(null)
  t.same(changed.splice(0), [])
  await broadcast(new Map([['odd', []]]))
  t.same(changed.splice(0), ['odd'])
  await broadcast(new Map([['odd', 'not a list']]))
  t.same(changed.splice(0), [], 'workers that are no list read as none: no change from none')
})

t.test('ask(): the started workers, from the ITC; without one NO_WATT', async (t) => {
  t.teardown(() => { delete globalThis.platformatic })
  await t.rejects(directory.ask('front'), {
    name: 'ChannelError', code: 'WATT_CHANNEL_NO_WATT', application: 'front', message: /no Watt ITC in this thread/
  })
  /** @type {string[]} */
  const asked = []
  globalThis.platformatic = /** @type {any} */ ({
    itc: {
      send: async (/** @type {string} */ name) => {
        asked.push(name)
        return {
          'front:0': { application: 'front', worker: 0, status: 'started', thread: 3 },
          'front:1': { application: 'front', worker: '1', status: 'starting', thread: 4 },
          'db:0': { application: 'db', worker: 0, status: 'started', thread: 5 }
        }
      }
    }
  })
  t.same(await directory.ask('front'), [{ thread: 3, worker: 0 }])
  t.same(await directory.ask('db'), [{ thread: 5, worker: 0 }])
  t.same(asked, [GET_WORKERS, GET_WORKERS], 'asked afresh each time')
})
