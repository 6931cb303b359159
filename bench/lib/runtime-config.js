// @ts-check
// The runtime config a bench starts: the committed one (watt.json,
// watt.mesh-port.json) as it is, or with --workers N a generated copy in which
// every downstream service runs N workers and the entry one (Watt 3.67:
// autoload.mappings.<id>.workers), and with a preload (the profiler's) that
// preload in every application. The committed files stay untouched; the copy
// lives under the project's .cache/ so that the drop-in's module and the apps
// resolve as from the root.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { ENTRY, SERVICES } from '../../lib/topology.js'
import { PROJECT_ROOT } from './paths.js'
import { onCleanup } from './processes.js'

/** This process's generated configs (removed when its runtimes have stopped). */
export const GENERATED_DIR = join(PROJECT_ROOT, '.cache', `bench-config-${process.pid}`)

/** Removes this process's generated configs; the runtimes started from them must be stopped first. */
export function removeGeneratedConfigs () {
  rmSync(GENERATED_DIR, { recursive: true, force: true })
}

/**
 * @param {string} base  a config relative to the project root
 * @param {{ workers?: number, services?: Record<string, number>, dir?: string, preload?: string, preloadApps?: readonly string[] }} [options]
 *   services: workers per named service instead (the others keep one), e.g. { node3: 2 } for a
 *   check that fails one worker of two; dir: where generated copies go; preload: an absolute
 *   path preloaded into every application, or only into `preloadApps`
 * @returns {string} the config to start, relative to the project root
 */
export function runtimeConfigFile (base, { workers = 1, services, dir = GENERATED_DIR, preload, preloadApps } = {}) {
  const named = Object.entries(services ?? {}).filter(([, n]) => n !== 1)
  if (workers === 1 && named.length === 0 && !preload) return base
  const workersOf = (/** @type {string} */ name) => services ? (services[name] ?? 1) : workers
  const preloadOf = (/** @type {string} */ name) => preload && (!preloadApps || preloadApps.includes(name)) ? { preload } : {}
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, base), 'utf8'))
  mkdirSync(dir, { recursive: true })
  // Ctrl-C exits without the bench's own stop: take the copies along then too
  if (dir === GENERATED_DIR) onCleanup(async () => removeGeneratedConfigs())
  config.autoload.path = relative(dir, join(PROJECT_ROOT, config.autoload.path))
  config.autoload.mappings = {
    ...config.autoload.mappings,
    // the entry stays at one worker: the question is how calls spread over the services'
    [ENTRY.name]: { ...config.autoload.mappings?.[ENTRY.name], id: ENTRY.name, workers: 1, ...preloadOf(ENTRY.name) },
    ...Object.fromEntries(SERVICES.map((s) => [s.name, { ...config.autoload.mappings?.[s.name], id: s.name, workers: workersOf(s.name), ...preloadOf(s.name) }]))
  }
  const suffix = (services ? named.map(([name, n]) => `${name}-${n}`).join('.') : String(workers)) + (preload ? '.preload' : '')
  const file = join(dir, basename(base).replace(/\.json$/, `.workers-${suffix}.json`))
  writeFileSync(file, JSON.stringify(config, null, 2))
  return relative(PROJECT_ROOT, file)
}
