// The caller scaled down under load (bench/reliability/scenarios/caller-scaler.js): Watt's
// scaler takes the calling entrypoint `front` from 3 workers to 1 while twelve callers go
// through it to `two`. Over the drop-in no call may fail and none may leave for the mesh;
// each removed worker must have answered calls before it went, so the scale-down happened
// under load. The mesh's path runs in `npm run check:reliability` (its failures are Watt's,
// recorded there with their status codes); here one path keeps the test at one runtime.
import { test } from 'tap'
import { callerScaleDown } from '../../bench/reliability/scenarios/caller-scaler.js'

test('the caller goes from 3 workers to 1 under load: over the drop-in no call fails', async (t) => {
  const result = await callerScaleDown({ path: 'drop-in' })
  const s = result.callerScaler
  for (const c of result.checks) t.ok(c.ok, `${c.name}${c.detail ? ` (${c.detail})` : ''}`)
  t.same(s.workers.removed, [1, 2], 'the scaler removed the front\'s workers 1 and 2')
  t.same(s.scaledDown, [2, 1], 'one at a time: 3 → 2 → 1 (the runtime\'s log)')
  t.equal(s.failed, 0, `none of ${s.calls} calls failed: ${JSON.stringify(s.failedByCode)}`)
  t.ok(s.httpPortCalls > 0, `${s.httpPortCalls} calls to two over http-port`)
  t.comment(`answers per front worker ${JSON.stringify(s.answersByWorker)}; connections reset at the entry and the GET sent again: ${s.resetAtEntry}`)
})
