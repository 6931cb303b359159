// @ts-check
// Every child process a script starts is registered here and stopped on exit,
// on Ctrl-C (SIGINT), on SIGTERM and on failure: nothing is left behind.
import { spawn } from 'node:child_process'
import { once } from 'node:events'

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set()
/** @type {Set<() => Promise<void>>} */
const cleanups = new Set()
let signalsInstalled = false
let interrupted = false

/**
 * Registers extra clean-up work (e.g. stopping a PM2 daemon) run on signals.
 * @param {() => Promise<void>} fn
 * @returns {() => void} unregister
 */
export function onCleanup (fn) {
  installSignalHandlers()
  cleanups.add(fn)
  return () => { cleanups.delete(fn) }
}

/** True once SIGINT/SIGTERM arrived: long loops check it to stop early. */
export function wasInterrupted () {
  return interrupted
}

/**
 * Spawns a tracked child with its output captured (last 200 lines kept for errors).
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions & { name?: string }} [options]
 */
export function spawnTracked (command, args, options = {}) {
  installSignalHandlers()
  // Through `env -u NODE_OPTIONS`: a parent's loaders (tap re-injects its own on every
  // spawn) must not reach the servers we measure, nor their worker threads.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  children.add(child)
  /** @type {string[]} */
  const output = []
  const keep = (/** @type {Buffer} */ chunk) => {
    for (const line of chunk.toString().split('\n')) if (line) output.push(line)
    if (output.length > 200) output.splice(0, output.length - 200)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = once(child, 'exit').then(([code, signal]) => {
    children.delete(child)
    return { code, signal }
  })
  return { child, exited, output: () => output.join('\n') }
}

/**
 * Stops a child: `signal` first, SIGKILL after `graceMs`. Resolves once it exited.
 * @param {import('node:child_process').ChildProcess} child
 * @param {{ signal?: NodeJS.Signals, graceMs?: number }} [options]
 */
export async function stopChild (child, { signal = 'SIGINT', graceMs = 10_000 } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill(signal)
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  try {
    await exited
  } finally {
    clearTimeout(timer)
  }
}

async function stopEverything () {
  await Promise.allSettled([...cleanups].map((fn) => fn()))
  await Promise.allSettled([...children].map((child) => stopChild(child)))
}

function installSignalHandlers () {
  if (signalsInstalled) return
  signalsInstalled = true
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
    process.on(signal, () => {
      if (interrupted) return // a second Ctrl-C while cleaning up: keep cleaning
      interrupted = true
      process.stderr.write(`\n${signal}: stopping everything this run started…\n`)
      const force = setTimeout(() => process.exit(130), 20_000)
      force.unref()
      stopEverything().finally(() => {
        process.exitCode = 130
        if (interruptHandlers.size === 0) process.exit(130)
        for (const fn of interruptHandlers) fn()
      })
    })
  }
  // Last resort when the process exits some other way: no orphan children.
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL')
  })
}

/** @type {Set<() => void>} */
const interruptHandlers = new Set()

/**
 * Called after clean-up on SIGINT/SIGTERM, e.g. to write partial results; the
 * handler then exits (non-zero). Without any handler the process exits with 130.
 * @param {() => void} fn
 */
export function onInterrupted (fn) {
  installSignalHandlers()
  interruptHandlers.add(fn)
}
