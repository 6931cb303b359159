import t from 'tap'
import { parseFlags, UsageError } from '../../bench/lib/cli.js'

const spec = {
  duration: { type: 'integer', default: 10, min: 1, max: 60, help: 'seconds' },
  // colours, not transports: the transport list lives in lib/topology.js only
  transports: { type: 'list', default: ['red', 'green'], choices: ['red', 'green', 'blue'], help: 'which' },
  'allow-errors': { type: 'boolean', default: false, help: 'keep going' },
  out: { type: 'string', help: 'path' }
}
const about = { command: 'x', description: 'y' }

t.test('defaults, conversion and camelCase names', async (t) => {
  t.same(parseFlags([], spec, about), { duration: 10, transports: ['red', 'green'], allowErrors: false, out: undefined })
  t.same(parseFlags(['--duration', '5', '--transports', 'blue,red,blue', '--allow-errors', '--out', 'a.json'], spec, about),
    { duration: 5, transports: ['blue', 'red'], allowErrors: true, out: 'a.json' })
})

t.test('bad input is a UsageError that says what is wrong', async (t) => {
  t.throws(() => parseFlags(['--duration', 'abc'], spec, about), new UsageError('--duration must be an integer, got "abc"'))
  t.throws(() => parseFlags(['--duration', '1.5'], spec, about), { name: 'UsageError', message: '--duration must be an integer, got "1.5"' })
  t.throws(() => parseFlags(['--duration', '0'], spec, about), /--duration must be from 1 to 60, got 0/)
  t.throws(() => parseFlags(['--transports', 'red,udp'], spec, about), /unknown value "udp"; choose from red, green, blue/)
  t.throws(() => parseFlags(['--nope'], spec, about), /Unknown option '--nope'/)
  t.throws(() => parseFlags(['--transports', ','], spec, about), /needs at least one value/)
})
