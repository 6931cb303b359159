// The drop-in under a fake Watt over the HTTP wire, as target workers stop, crash and restart
// (helpers/worker-lifecycle.js; drop-in-frames.test.js: the same over the frames wire).
import t from 'tap'
import { workerLifecycle } from '../helpers/worker-lifecycle.js'

t.test('HTTP wire: a stopping worker gets no new request, a crash moves a GET only, a restart loses none',
  (t) => workerLifecycle(t, 'http'))
