// @ts-check
// npm run watt-env: rewrites watt.env from lib/topology.js (`--check` only compares).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderWattEnv } from '../lib/watt-env.js'

const file = join(import.meta.dirname, '..', 'watt.env')
const wanted = renderWattEnv()
if (process.argv.includes('--check')) {
  if (readFileSync(file, 'utf8') !== wanted) {
    process.stderr.write('watt.env differs from lib/topology.js: run `npm run watt-env`\n')
    process.exit(1)
  }
} else {
  writeFileSync(file, wanted)
  process.stdout.write(`wrote ${file}\n`)
}
