// The bench's flags for the transports outside the runtime: bad values answered
// with exit 2 and the reason, before anything starts.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { isListening } from '../../bench/lib/ports.js'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(360_000)

const run = promisify(execFile)
const root = join(import.meta.dirname, '..', '..')
const RUN = join(root, 'bench', 'transports', 'run.js')
const QUICK = ['--profiles', 'latency', '--duration', '1', '--warmup', '0', '--wrk', 'off']

async function bench (args, { env = {}, prefix = [] } = {}) {
  const ports = runtimeEnv(await privatePorts())
  const [command, ...rest] = [...prefix, process.execPath, RUN, ...args]
  try {
    const { stdout, stderr } = await run(command, rest, { cwd: root, env: { ...process.env, ...ports, ...env }, timeout: 300_000 })
    return { code: 0, stdout, stderr, ports }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr, ports }
  }
}

t.test('bad flags: exit 2 with the reason, nothing started', async (t) => {
  const cases = [
    [['--rtt-ms=-1'], {}, /--rtt-ms must be from 0/],
    [['--rtt-ms', 'fast'], {}, /--rtt-ms must be a number/],
    [['--service-host', 'no-such-host.invalid'], {}, /--service-host no-such-host\.invalid: unknown host/],
    [['--service-host', 'a b'], {}, /--service-host must be a host name or address/],
    [[], { NODE3_REMOTE_ADDR: '192.0.2.7:3102' }, /NODE3_REMOTE_ADDR=192\.0\.2\.7:3102 is not on this machine: non-loopback service targets need --service-host 192\.0\.2\.7/]
  ]
  const answers = await Promise.all(cases.map(([args, env]) => bench(['--transports', 'tcp-remote,direct', ...QUICK, ...args], { env })))
  for (const [i, [args, env, reason]] of cases.entries()) {
    const { code, stderr, ports } = answers[i]
    t.equal(code, 2, `${args.join(' ') || JSON.stringify(env)}: exit 2`)
    t.match(stderr, reason, 'says why')
    t.notOk(await isListening(Number(ports.PORT)), 'no runtime was started')
  }
})
