// The drop-in under a fake Watt, as target workers stop, crash and restart (helpers/worker-lifecycle.js).
import t from 'tap'
import { workerLifecycle } from '../helpers/worker-lifecycle.js'

t.test('HTTP wire: a stopping worker gets no new request, a crash moves a GET only, a restart loses none',
  (t) => workerLifecycle(t))
