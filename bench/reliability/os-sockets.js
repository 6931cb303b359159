// @ts-check
// What a process tree listens on, read from the OS (Linux /proc), not from what
// the code says it does: socket inodes from /proc/<pid>/fd, matched against the
// kernel's tables in /proc/<pid>/net/{tcp,tcp6,udp,udp6,unix}.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/**
 * @typedef {object} ListeningSocket
 * @property {number} pid
 * @property {'tcp' | 'tcp6' | 'udp' | 'udp6' | 'unix'} proto
 * @property {string} [address]  IP address (inet sockets)
 * @property {number} [port]
 * @property {string} [path]     unix socket path ('' when abstract or unnamed)
 * @property {number} inode
 * @property {boolean} [elsewhere]  in another network namespace than ours (the emulated remote host):
 *                                  not reachable on this host's network, whatever its address
 */

const TCP_LISTEN = '0A'
const UNIX_ACCEPTING = 0x10000 // __SO_ACCEPTCON: a listening unix socket

/** True on a system with /proc (Linux); the checks are skipped elsewhere. */
export function hasProcFs () {
  try {
    readFileSync('/proc/self/net/tcp', 'utf8')
    return true
  } catch {
    return false
  }
}

/**
 * The process and all its descendants (threads' children included).
 * @param {number} pid
 * @returns {number[]}
 */
export function processTree (pid) {
  const seen = new Set([pid])
  const queue = [pid]
  while (queue.length > 0) {
    const current = /** @type {number} */ (queue.shift())
    for (const child of childrenOf(current)) {
      if (!seen.has(child)) {
        seen.add(child)
        queue.push(child)
      }
    }
  }
  return [...seen]
}

/** @param {number} pid */
function childrenOf (pid) {
  const children = []
  for (const task of safeReaddir(`/proc/${pid}/task`)) {
    const text = safeRead(`/proc/${pid}/task/${task}/children`)
    for (const id of text.split(/\s+/)) if (id) children.push(Number(id))
  }
  return children
}

/**
 * Every listening TCP socket, bound UDP socket and listening unix socket held by
 * these processes.
 * @param {number[]} pids
 * @returns {ListeningSocket[]}
 */
export function listeningSockets (pids) {
  /** @type {ListeningSocket[]} */
  const found = []
  const ours = networkNamespace('self')
  for (const pid of pids) {
    const inodes = socketInodes(pid)
    if (inodes.size === 0) continue
    const elsewhere = ours !== null && networkNamespace(pid) !== ours
    for (const proto of /** @type {const} */ (['tcp', 'tcp6', 'udp', 'udp6'])) {
      for (const row of parseInetTable(safeRead(`/proc/${pid}/net/${proto}`), proto.endsWith('6') ? 6 : 4)) {
        const listening = proto.startsWith('tcp') ? row.state === TCP_LISTEN : row.port !== 0
        if (listening && inodes.has(row.inode)) found.push({ pid, proto, address: row.address, port: row.port, inode: row.inode, ...(elsewhere ? { elsewhere } : {}) })
      }
    }
    for (const row of parseUnixTable(safeRead(`/proc/${pid}/net/unix`))) {
      if (row.listening && inodes.has(row.inode)) found.push({ pid, proto: 'unix', path: row.path, inode: row.inode })
    }
  }
  return found
}

/**
 * The network namespace a process is in (`net:[inode]`), or null when unreadable.
 * @param {number | 'self'} pid
 */
export function networkNamespace (pid) {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`)
  } catch {
    return null
  }
}

/**
 * @param {number} pid
 * @returns {Set<number>}
 */
export function socketInodes (pid) {
  const inodes = new Set()
  for (const fd of safeReaddir(`/proc/${pid}/fd`)) {
    let target = ''
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue // closed meanwhile
    }
    const match = /^socket:\[(\d+)\]$/.exec(target)
    if (match) inodes.add(Number(match[1]))
  }
  return inodes
}

/**
 * Rows of /proc/net/tcp, tcp6, udp or udp6.
 * @param {string} text
 * @param {4 | 6} family
 * @returns {{ address: string, port: number, state: string, inode: number }[]}
 */
export function parseInetTable (text, family) {
  const rows = []
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields.length < 10) continue
    const [hexAddress, hexPort] = fields[1].split(':')
    rows.push({ address: decodeAddress(hexAddress, family), port: parseInt(hexPort, 16), state: fields[3], inode: Number(fields[9]) })
  }
  return rows
}

/**
 * The kernel prints addresses as 32-bit words in host byte order (little-endian here).
 * @param {string} hex
 * @param {4 | 6} family
 */
export function decodeAddress (hex, family) {
  const bytes = []
  for (let word = 0; word < hex.length; word += 8) {
    const chunk = hex.slice(word, word + 8)
    for (let i = 6; i >= 0; i -= 2) bytes.push(parseInt(chunk.slice(i, i + 2), 16))
  }
  if (family === 4) return bytes.join('.')
  const groups = []
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16))
  // URL parsing compresses the address to its canonical text form (::1, ::ffff:7f00:1, …).
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1)
}

/**
 * Rows of /proc/net/unix.
 * @param {string} text
 * @returns {{ inode: number, listening: boolean, path: string }[]}
 */
export function parseUnixTable (text) {
  const rows = []
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields.length < 7) continue
    rows.push({ inode: Number(fields[6]), listening: (parseInt(fields[3], 16) & UNIX_ACCEPTING) !== 0, path: fields[7] ?? '' })
  }
  return rows
}

/**
 * @param {ListeningSocket} socket
 */
export function describeSocket (socket) {
  return socket.proto === 'unix' ? `unix ${socket.path || '(unnamed)'}` : `${socket.proto} ${socket.address}:${socket.port}${socket.elsewhere ? ' (in another network namespace)' : ''}`
}

/** @param {string} path */
function safeRead (path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** @param {string} path */
function safeReaddir (path) {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}
