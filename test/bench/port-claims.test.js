import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import t from 'tap'
import { CLAIMS_DIR, claimPort, releaseClaims } from '../../bench/lib/port-claims.js'
import { freePorts } from '../../bench/lib/ports.js'

const claimsModule = new URL('../../bench/lib/port-claims.js', import.meta.url).href

/** A script that claims `port` in `dir`, says so, then waits (or exits when `exit` is set). */
const claimer = (port, dir, exit) => `
import { claimPort } from '${claimsModule}'
console.log(claimPort(${port}, ${JSON.stringify(dir)}))
${exit ? '' : 'setInterval(() => {}, 1000)'}`

t.test('a port claimed by a live process is refused to every other, this one included', async (t) => {
  const dir = t.testdir()
  const child = spawn(process.execPath, ['--input-type=module', '-e', claimer(40001, dir, false)], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => child.kill('SIGKILL'))
  const [line] = await once(child.stdout, 'data')
  t.equal(String(line).trim(), 'true', 'the first claimer gets it')
  t.equal(readFileSync(join(dir, '40001'), 'utf8'), String(child.pid), 'the claim names its holder')
  t.equal(claimPort(40001, dir), false, 'held by a live process')

  t.equal(claimPort(40002, dir), true)
  t.equal(claimPort(40002, dir), false, 'a port this process holds is not handed out twice')
})

t.test('a claim is released when its process exits, and a killed holder\'s claim is taken over', async (t) => {
  const dir = t.testdir()
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', claimer(40003, dir, true)], { encoding: 'utf8' })
  t.equal(out.trim(), 'true')
  t.equal(existsSync(join(dir, '40003')), false, 'removed on exit')

  const child = spawn(process.execPath, ['--input-type=module', '-e', claimer(40004, dir, false)], { stdio: ['ignore', 'pipe', 'inherit'] })
  await once(child.stdout, 'data')
  child.kill('SIGKILL')
  await once(child, 'exit')
  t.equal(existsSync(join(dir, '40004')), true, 'SIGKILL leaves the claim behind')
  t.equal(claimPort(40004, dir), true, 'a dead holder\'s claim is stale')
  t.equal(readFileSync(join(dir, '40004'), 'utf8'), String(process.pid))

  writeFileSync(join(dir, '40005'), '')
  t.equal(claimPort(40005, dir), true, 'an unreadable claim is stale too')
  releaseClaims()
  t.equal(existsSync(join(dir, '40004')), false, 'releaseClaims removes this process\'s claims')
})

t.test('freePorts hands out distinct ports, each claimed by this process, never twice', async (t) => {
  const first = await freePorts(20)
  const second = await freePorts(20)
  t.equal(new Set([...first, ...second]).size, 40, 'no port twice, across calls in one process')
  for (const port of [...first, ...second]) {
    t.equal(readFileSync(join(CLAIMS_DIR, String(port)), 'utf8'), String(process.pid), `${port} claimed`)
  }
})
