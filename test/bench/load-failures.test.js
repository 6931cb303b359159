import t from 'tap'
import { failuresOf } from '../../bench/lib/load.js'

const clean = () => ({
  totalRequests: 1000,
  status: { '2xx': 1000, non2xx: 0, byCode: { 200: 1000 } },
  errors: 0,
  timeouts: 0,
  mismatches: 0
})

t.test('a clean run has no failures', async (t) => {
  t.same(failuresOf(clean()), [])
})

t.test('every kind of problem fails the run, with the reason', async (t) => {
  const non2xx = { ...clean(), status: { '2xx': 990, non2xx: 10, byCode: { 200: 990, 502: 7, 504: 3 } } }
  t.same(failuresOf(non2xx), ['10 non-2xx (7×502, 3×504)'])
  t.same(failuresOf({ ...clean(), errors: 5, timeouts: 2 }), ['3 errors', '2 timeouts'])
  t.same(failuresOf({ ...clean(), mismatches: 1 }), ['1 body mismatches'])
  t.same(failuresOf({ ...clean(), totalRequests: 0, status: { '2xx': 0, non2xx: 0, byCode: {} } }), ['no successful response'])
})
