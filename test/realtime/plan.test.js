// The realtime suite's plan and command line: the defaults expand to every
// profile on every path, each profile's paths side by side (so a round runs
// A B C, then the next profile's), in the order ws, sse, client leaves; the
// flags narrow it; a value out of range is a usage error (exit 2) before
// anything starts; --help lists the suite's flags and the driver's.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parseFlags, UsageError } from '../../bench/lib/cli.js'
import { planRuns } from '../../bench/lib/runner.js'
import { casesFrom, FLAGS, PATHS, sizeLabel } from '../../bench/realtime/plan.js'

const exec = promisify(execFile)
const RUN = new URL('../../bench/realtime/run.js', import.meta.url).pathname
const about = { command: 'test', description: 'test' }
const flagsOf = (/** @type {string[]} */ argv) => parseFlags(argv, FLAGS, about)

t.test('the defaults: 4 echo profiles, 2 fan-outs and the leave check, each on the 3 paths', async (t) => {
  const cases = casesFrom(flagsOf([]))
  t.same([...new Set(cases.map((c) => c.profile))], ['ws 10×64 B', 'ws 10×16 KiB', 'ws 100×64 B', 'ws 100×16 KiB', 'sse 10', 'sse 100', 'client leaves'])
  t.equal(cases.length, 7 * PATHS.length)
  t.same(cases.slice(0, 3).map((c) => c.path), [...PATHS], 'a profile\'s paths side by side')
  t.match(cases[0], { target: 'ipc', kind: 'ws', sockets: 10, size: 64 })
  t.match(cases.find((c) => c.profile === 'sse 100'), { kind: 'sse', subscribers: 100 })
  const plan = planRuns(cases, 3)
  t.equal(plan.length, cases.length * 3)
  t.same(plan.slice(0, 6).map(({ kase, round }) => `${kase.target}@${round}`), ['ipc@1', 'tcp@1', 'mesh-port@1', 'ipc@1', 'tcp@1', 'mesh-port@1'], 'rounds interleave the paths')
  t.equal(plan[cases.length].round, 2, 'every case once per round, then the next round')
})

t.test('flags narrow the plan, and bad values are usage errors', async (t) => {
  const cases = casesFrom(flagsOf(['--kinds', 'ws', '--paths', 'tcp,mesh-port', '--sockets', '2', '--sizes', '8,1024']))
  t.same(cases.map((c) => `${c.profile}@${c.path}`), ['ws 2×8 B@tcp', 'ws 2×8 B@mesh-port', 'ws 2×1 KiB@tcp', 'ws 2×1 KiB@mesh-port'])
  t.same(casesFrom(flagsOf(['--kinds', 'leave'])).map((c) => c.profile), ['client leaves', 'client leaves', 'client leaves'])
  t.throws(() => casesFrom(flagsOf(['--sizes', '4'])), UsageError, 'a message shorter than its header')
  t.throws(() => casesFrom(flagsOf(['--sockets', 'ten'])), /--sockets: each value must be an integer/)
  t.throws(() => flagsOf(['--paths', 'udp']), /unknown value "udp"/)
  t.throws(() => flagsOf(['--duration', '0']), /--duration must be from 1/)
  t.equal(sizeLabel(16384), '16 KiB')
  t.equal(sizeLabel(1000), '1000 B')
})

t.test('the command: a usage error exits 2 before any runtime starts; --help lists the flags', async (t) => {
  const bad = await exec(process.execPath, [RUN, '--sizes', '4'], { timeout: 60_000 }).then(() => null, (err) => err)
  t.equal(bad?.code, 2)
  t.match(bad?.stderr, /--sizes: each value must be an integer from 8/)
  t.notMatch(bad?.stderr, /started/, 'no runtime started')
  const { stdout } = await exec(process.execPath, [RUN, '--help'], { timeout: 60_000 })
  for (const flag of ['--sockets', '--sizes', '--subscribers', '--event-rate', '--leave-wait', '--paths', '--out', '--fail-fast']) t.match(stdout, flag)
})
