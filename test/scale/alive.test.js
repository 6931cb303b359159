// A zombie is gone: it holds no port, and a container's PID 1 may never reap it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { isAlive, waitGone } from '../../bench/scale/alive.js'
import { procState, until } from '../helpers/wait.js'

t.test('live, exited and zombie processes', async (t) => {
  t.equal(isAlive(process.pid), true, 'this process')

  const exited = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(exited, 'exit')
  t.equal(isAlive(exited.pid), false, 'an exited, reaped child')

  // sh forks a child and then becomes `sleep`, which never waits: the child,
  // once it exits, stays a zombie. It exits only after its parent has become
  // `sleep`: a child that exits before the exec is reaped by sh itself, and no
  // zombie ever appears (that raced on a loaded box, 2 of 4 fresh-clone runs).
  const child = 'while [ "$(cat /proc/$PPID/comm)" != sleep ]; do sleep 0.05; done'
  const parent = spawn('sh', ['-c', `sh -c '${child}' & echo $!; exec sleep 600`], { stdio: ['ignore', 'pipe', 'ignore'] })
  t.teardown(() => parent.kill('SIGKILL'))
  const [line] = await once(parent.stdout, 'data')
  const zombie = Number(String(line).trim())
  // wait for the kernel to say it exited (a loaded box may take a while to run it)
  await until(() => procState(zombie) === 'Z', { what: `process ${zombie} to become a zombie` })
  t.doesNotThrow(() => process.kill(zombie, 0), 'kill(0) still finds the zombie')
  t.equal(isAlive(zombie), false, 'isAlive does not')
  t.same(await waitGone([zombie, exited.pid], 500), [], 'waitGone counts it as gone')
  t.same(await waitGone([process.pid], 100), [process.pid], 'and reports what is still alive')
})
