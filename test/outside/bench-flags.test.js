// The bench's flags for the transports outside the runtime: bad values answered
// with exit 2 and the reason, before anything starts.
import t from 'tap'
import { QUICK, bench } from '../helpers/outside-bench.js'
import { isListening } from '../../bench/lib/ports.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(360_000)

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
