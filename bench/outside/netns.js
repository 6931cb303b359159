// @ts-check
// A second "host" on this machine: a Linux network namespace joined to ours by a
// veth pair, each end with an address of its own in a private /30 (10.213.0.0/24
// is cut into 64 of them). The namespace's name claims its /30 (`ip netns add`
// fails when it exists), an owner file lets a later run remove what a killed run
// left, and remove() takes everything away again: processes, veth pair (with any
// qdisc on it) and namespace. Needs root and `ip` (Debian package iproute2).
import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export const NAMESPACE_PREFIX = 'wattlab-'
export const VETH_PREFIX = 'wlab'
const SUBNETS = 64
export const OWNERS_DIR = '/tmp/watt-lab-netns'

/** `ip netns add` mounts (CAP_SYS_ADMIN) and veth pairs need CAP_NET_ADMIN. */
const NEEDED_CAPABILITIES = [['CAP_NET_ADMIN', 12], ['CAP_SYS_ADMIN', 21]]

/**
 * This process's effective capabilities (the CapEff mask of /proc/self/status), or
 * null where it cannot be read.
 * @returns {bigint | null}
 */
export function effectiveCapabilities () {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m)
    return line ? BigInt('0x' + line[1]) : null
  } catch {
    return null
  }
}

/**
 * Whether this machine lets us make namespaces; the reason when it does not.
 * Root is not enough: a root whose capabilities were dropped (a container, setpriv)
 * cannot make them either.
 * @param {{ uid?: number, ip?: string, capabilities?: bigint | null }} [probe]  who we are,
 *   what we may do and which `ip` (tests pass others)
 * @returns {{ ok: true } | { ok: false, reason: string }}
 */
export function namespaceSupport ({ uid = process.getuid?.(), ip = 'ip', capabilities = effectiveCapabilities() } = {}) {
  if (process.platform !== 'linux') return { ok: false, reason: `network namespaces need Linux (this is ${process.platform})` }
  if (uid !== 0) return { ok: false, reason: 'network namespaces and veth pairs need root (run as root, e.g. sudo)' }
  if (capabilities !== null) {
    const missing = NEEDED_CAPABILITIES.filter(([, bit]) => (capabilities & (1n << BigInt(bit))) === 0n).map(([name]) => name)
    if (missing.length > 0) return { ok: false, reason: `network namespaces and veth pairs need root with ${missing.join(' and ')}, which this process lacks` }
  }
  try {
    execFileSync(ip, ['-V'], { stdio: 'ignore' })
  } catch {
    return { ok: false, reason: "the 'ip' command is missing (install Debian's iproute2: apt-get install iproute2)" }
  }
  try {
    execFileSync(ip, ['netns', 'list'], { stdio: 'ignore' })
  } catch (err) {
    return { ok: false, reason: `'ip netns list' failed: ${/** @type {Error} */ (err).message}` }
  }
  return { ok: true }
}

/**
 * @typedef {object} Namespace
 * @property {string} name
 * @property {string} hostInterface    our end of the veth pair
 * @property {string} remoteInterface  the namespace's end
 * @property {string} hostAddress
 * @property {string} remoteAddress
 * @property {string[]} exec           command prefix that runs a program inside
 * @property {() => Promise<void>} remove
 */

/**
 * Creates the namespace, the veth pair and the addresses, all up. Fails (after
 * removing whatever it made) when the machine does not allow it.
 * @returns {Promise<Namespace>}
 */
export async function createNamespace () {
  await removeOrphans()
  const index = await claimIndex()
  const name = NAMESPACE_PREFIX + index
  const hostInterface = `${VETH_PREFIX}${index}h`
  const remoteInterface = `${VETH_PREFIX}${index}r`
  const hostAddress = `10.213.0.${index * 4 + 1}`
  const remoteAddress = `10.213.0.${index * 4 + 2}`
  mkdirSync(OWNERS_DIR, { recursive: true })
  writeFileSync(join(OWNERS_DIR, name), String(process.pid))
  const remove = () => removeNamespace(index)
  // Last resort for an exit that skips the async clean-up (process.exit after a crash).
  const onExit = () => removeNamespaceSync(index)
  process.once('exit', onExit)
  try {
    await run('ip', ['link', 'del', hostInterface]).catch(() => {}) // a leftover of a killed run
    await run('ip', ['link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', remoteInterface, 'netns', name])
    await run('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', hostInterface])
    await run('ip', ['link', 'set', hostInterface, 'up'])
    await run('ip', ['-n', name, 'link', 'set', 'lo', 'up'])
    await run('ip', ['-n', name, 'addr', 'add', `${remoteAddress}/30`, 'dev', remoteInterface])
    await run('ip', ['-n', name, 'link', 'set', remoteInterface, 'up'])
  } catch (err) {
    await remove()
    process.removeListener('exit', onExit)
    throw new Error(`could not set up network namespace ${name}: ${/** @type {Error} */ (err).message}`)
  }
  return {
    name,
    hostInterface,
    remoteInterface,
    hostAddress,
    remoteAddress,
    exec: ['ip', 'netns', 'exec', name],
    remove: async () => {
      await remove()
      process.removeListener('exit', onExit)
    }
  }
}

/** The first free /30: `ip netns add` is atomic, so two runs never get the same one. */
async function claimIndex () {
  for (let index = 0; index < SUBNETS; index++) {
    try {
      await run('ip', ['netns', 'add', NAMESPACE_PREFIX + index])
      return index
    } catch (err) {
      const message = /** @type {any} */ (err).stderr ?? ''
      if (!/exists/i.test(message)) throw new Error(`ip netns add failed: ${message.trim() || /** @type {Error} */ (err).message}`)
    }
  }
  throw new Error(`all ${SUBNETS} lab namespaces (${NAMESPACE_PREFIX}0…${SUBNETS - 1}) are in use`)
}

/**
 * Kills what still runs inside, deletes the veth pair (its peer and qdiscs go
 * with it) and the namespace. Idempotent.
 * @param {number} index
 */
async function removeNamespace (index) {
  const name = NAMESPACE_PREFIX + index
  const pids = await run('ip', ['netns', 'pids', name]).then(({ stdout }) => stdout.split(/\s+/).filter(Boolean).map(Number), () => [])
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
  await run('ip', ['link', 'del', `${VETH_PREFIX}${index}h`]).catch(() => {})
  await run('ip', ['netns', 'del', name]).catch(() => {})
  rmSync(join(OWNERS_DIR, name), { force: true })
}

/** @param {number} index */
function removeNamespaceSync (index) {
  const name = NAMESPACE_PREFIX + index
  try {
    for (const pid of execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).split(/\s+/).filter(Boolean)) {
      try { process.kill(Number(pid), 'SIGKILL') } catch {}
    }
  } catch {}
  for (const args of [['link', 'del', `${VETH_PREFIX}${index}h`], ['netns', 'del', name]]) {
    try { execFileSync('ip', args, { stdio: 'ignore' }) } catch {}
  }
  rmSync(join(OWNERS_DIR, name), { force: true })
}

/** The lab namespaces present now (ours or anyone's). */
export async function labNamespaces () {
  const { stdout } = await run('ip', ['netns', 'list'])
  return stdout.split('\n').map((line) => line.split(' ')[0]).filter((name) => name.startsWith(NAMESPACE_PREFIX))
}

/** The lab veth ends present in our namespace now. */
export async function labInterfaces () {
  const { stdout } = await run('ip', ['-o', 'link', 'show'])
  return stdout.split('\n').map((line) => line.split(': ')[1]?.split('@')[0]).filter((name) => name?.startsWith(VETH_PREFIX))
}

/**
 * Removes lab namespaces whose owner process is gone (a run killed with SIGKILL).
 * Namespaces without an owner file are left alone: they may be being made now.
 */
export async function removeOrphans () {
  /** @type {string[]} */
  let owned = []
  try {
    owned = readdirSync(OWNERS_DIR).filter((name) => name.startsWith(NAMESPACE_PREFIX))
  } catch {
    return []
  }
  const removed = []
  for (const name of owned) {
    const owner = Number(readFileSync(join(OWNERS_DIR, name), 'utf8'))
    if (alive(owner)) continue
    await removeNamespace(Number(name.slice(NAMESPACE_PREFIX.length)))
    removed.push(name)
  }
  return removed
}

/** @param {number} pid */
function alive (pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
}

/**
 * Emulates the round trip with netem, half on each end, when the kernel has it.
 * Answers false (and changes nothing) when it does not ("Specified qdisc kind is unknown").
 * @param {Namespace} ns
 * @param {number} rttMs
 */
export async function setNetemDelay (ns, rttMs) {
  const delay = `${(rttMs / 2 * 1000).toFixed(0)}us`
  try {
    await run('tc', ['qdisc', 'replace', 'dev', ns.hostInterface, 'root', 'netem', 'delay', delay])
  } catch (err) {
    const message = String(/** @type {any} */ (err).stderr ?? /** @type {Error} */ (err).message)
    if (/unknown|not found|ENOENT/i.test(message) || /** @type {any} */ (err).code === 'ENOENT') return false
    throw new Error(`tc qdisc netem on ${ns.hostInterface}: ${message.trim()}`)
  }
  await run('ip', ['netns', 'exec', ns.name, 'tc', 'qdisc', 'replace', 'dev', ns.remoteInterface, 'root', 'netem', 'delay', delay])
  return true
}
