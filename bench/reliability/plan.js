// @ts-check
// The reliability check's flags, the quick forms (what the tests and CI run),
// and the scenario cases they expand to.
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { availabilityOf, inOwnRuntime, TRANSPORTS } from '../../lib/topology.js'
import { FAULT_KINDS, FAULT_NAMES } from './faults/kinds.js'
import { WORKER_FAULTS } from './faults/one-worker.js'
import { SCALER_PATHS } from './scenarios/scaler.js'
import { DEFAULT_SUITES, OWN_RUNTIME_SUITES, SUITE_NAMES } from './scenarios/shutdown.js'

export const SCENARIOS = /** @type {const} */ (['load', 'leaks', 'fuzz', 'faults', 'scaler', 'caller-scaler', 'binds', 'shutdown'])
// quick: the transport bench, and one over each transport measured in a runtime of its own
const QUICK_SUITES = ['transports', ...Object.values(OWN_RUNTIME_SUITES)]

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  scenarios: { type: 'list', default: [...SCENARIOS], choices: SCENARIOS, help: 'which scenarios' },
  quick: { type: 'boolean', default: false, help: 'short forms, as the tests run them (fewer seconds, faults crash,hang)' },
  duration: { type: 'integer', min: 1, max: 600, help: 'load: seconds per transport at c100 p10 (default 10, quick 5)' },
  'leak-runs': { type: 'integer', default: 5, min: 2, max: 50, help: 'leaks: back-to-back seed-profile runs' },
  'leak-seconds': { type: 'integer', min: 1, max: 120, help: 'leaks: seconds per transport per run (default 3, quick 1)' },
  'leak-growth': { type: 'number', default: 0.2, min: 0, max: 10, help: 'leaks: allowed RSS and heap growth, first to last run' },
  'fuzz-requests': { type: 'integer', min: 1, max: 1_000_000, help: 'fuzz: generated requests (default 2000, quick 1000)' },
  'fuzz-seed': { type: 'integer', default: 7, min: 0, max: 2 ** 32 - 1, help: 'fuzz: seed (the same seed replays the same requests)' },
  'fuzz-concurrency': { type: 'integer', default: 16, min: 1, max: 256, help: 'fuzz: requests in flight' },
  'worker-faults': { type: 'list', choices: Object.keys(WORKER_FAULTS), help: `faults: one worker of two of the service, for mesh-port (default ${Object.keys(WORKER_FAULTS).join(',')}, quick crash,hang)` },
  faults: { type: 'list', choices: FAULT_NAMES, help: `faults: which (default ${FAULT_NAMES.join(',')}, quick crash,hang); process-crash runs once per transport whose services run outside the runtime` },
  'fault-service': { type: 'string', default: 'node3', choices: DOWNSTREAM_SERVICES, help: 'faults: the downstream service that fails' },
  'fault-hold-ms': { type: 'integer', min: 100, max: 60_000, help: 'faults: how long a hang or a stop lasts (default call timeout + 2000)' },
  'fault-connections': { type: 'integer', default: 8, min: 1, max: 1000, help: 'faults: autocannon connections per transport during a fault' },
  'probe-rate': { type: 'integer', default: 20, min: 1, max: 1000, help: 'faults: timed requests per second per transport (error window, recovery)' },
  'recovery-limit-ms': { type: 'integer', default: 5000, min: 0, max: 120_000, help: 'faults: errors must stop this soon after the service is back' },
  'latency-slack-ms': { type: 'integer', default: 1000, min: 0, max: 60_000, help: 'faults: an error may take the call timeout plus this' },
  'shutdown-suites': { type: 'list', choices: SUITE_NAMES, help: `shutdown: benches interrupted mid-run (default ${DEFAULT_SUITES.join(',')}, quick ${QUICK_SUITES.join(',')})` },
  'call-timeout-ms': { type: 'integer', default: 3000, min: 100, max: 600_000, help: 'the runtime\'s CALL_TIMEOUT_MS' },
  out: { type: 'string', help: 'result JSON path (default results/reliability-<time>.json)' }
}

/**
 * Fills the quick/full defaults in.
 * @param {Record<string, any>} flags
 * @returns {Record<string, any>}
 */
export function resolveSettings (flags) {
  const quick = flags.quick
  return {
    ...flags,
    duration: flags.duration ?? (quick ? 5 : 10),
    leakSeconds: flags.leakSeconds ?? (quick ? 1 : 3),
    fuzzRequests: flags.fuzzRequests ?? (quick ? 1000 : 2000),
    faults: flags.faults ?? (quick ? ['crash', 'hang'] : FAULT_NAMES),
    workerFaults: flags.workerFaults ?? (quick ? ['crash', 'hang'] : Object.keys(WORKER_FAULTS)),
    faultHoldMs: flags.faultHoldMs ?? flags.callTimeoutMs + 2000,
    shutdownSuites: flags.shutdownSuites ?? (quick ? QUICK_SUITES : DEFAULT_SUITES)
  }
}

/**
 * Every transport the check can run here: in the runtime, outside it where the
 * harness can start its targets (service processes, a remote host), and those
 * measured in a runtime of their own (mesh-port), which the check starts apart.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function checkedTransports (env = process.env) {
  return TRANSPORTS.filter((t) => availabilityOf(t.name, env, { startable: true }).available).map((t) => t.name)
}

/** The transports whose targets live outside the runtime (they have a requirement, not a runtime of their own). */
export function outsideTransports (env = process.env) {
  return checkedTransports(env).filter((name) => TRANSPORTS.find((t) => t.name === name)?.requires && !inOwnRuntime(name))
}

/**
 * The transports checked in a runtime of their own (mesh-port's, the faulted service
 * at two workers), in every scenario the others are in, each a case of its own:
 * load; leaks and fuzz over it alone in that runtime (its drop-in's links, sessions
 * and pools are what they would find); that runtime's binds; the faults of one
 * worker of two; and a Ctrl-C of a bench over it (OWN_RUNTIME_SUITES), which starts
 * that runtime too.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function ownRuntimeTransports (env = process.env) {
  return checkedTransports(env).filter(inOwnRuntime)
}

/**
 * @param {Record<string, any>} settings
 * @returns {import('../lib/types.js').Case[]}
 */
export function casesFrom (settings) {
  const wanted = new Set(settings.scenarios)
  const cases = []
  if (wanted.has('load')) for (const transport of checkedTransports()) cases.push({ profile: 'load', target: transport, transport })
  if (wanted.has('leaks')) {
    cases.push({ profile: 'leaks', target: `${settings.leakRuns} seed runs` })
    for (const transport of ownRuntimeTransports()) cases.push({ profile: 'leaks', target: `${settings.leakRuns} seed runs (${transport})`, transport })
  }
  if (wanted.has('fuzz')) {
    cases.push({ profile: 'fuzz', target: `${settings.fuzzRequests} requests` })
    for (const transport of ownRuntimeTransports()) cases.push({ profile: 'fuzz', target: `${settings.fuzzRequests} requests (${transport})`, transport })
  }
  if (wanted.has('faults')) {
    for (const kind of settings.faults) {
      if (!FAULT_KINDS[kind].outside) cases.push({ profile: 'faults', target: `${kind} ${settings.faultService}`, kind })
      else for (const transport of outsideTransports()) cases.push({ profile: 'faults', target: `${kind} ${settings.faultService} (${transport})`, kind, transport })
    }
    // one worker of two fails where the transport links each worker apart
    for (const kind of settings.workerFaults) {
      for (const transport of ownRuntimeTransports()) {
        cases.push({ profile: 'faults', target: `${kind} ${settings.faultService} one worker of 2 (${transport})`, kind, transport, oneWorker: true })
      }
    }
  }
  // Watt's scaler under load, each path in a runtime of its own (the mesh-port fixture's front and two)
  if (wanted.has('scaler')) {
    const over = { mesh: "Watt's mesh (ipc)", 'drop-in': 'the drop-in (mesh-port)' }
    for (const path of SCALER_PATHS) cases.push({ profile: 'scaler', target: `two 1→3→1 workers under load, over ${over[path]}`, path })
  }
  // the caller scaled down: the scaler takes the front (the calling entrypoint) 3→1, each path in a runtime of its own
  if (wanted.has('caller-scaler')) {
    const over = { mesh: "Watt's mesh (ipc)", 'drop-in': 'the drop-in (mesh-port)' }
    for (const path of SCALER_PATHS) cases.push({ profile: 'caller-scaler', target: `front (caller) 3→1 workers under load, over ${over[path]}`, path })
  }
  if (wanted.has('binds')) {
    cases.push({ profile: 'binds', target: 'runtime, runner, transports bench' })
    for (const transport of ownRuntimeTransports()) cases.push({ profile: 'binds', target: `runtime, runner (${transport})`, transport })
  }
  if (wanted.has('shutdown')) {
    for (const suite of settings.shutdownSuites) {
      const transport = Object.keys(OWN_RUNTIME_SUITES).find((name) => OWN_RUNTIME_SUITES[name] === suite)
      cases.push({ profile: 'shutdown', target: `${suite}: Ctrl-C (SIGINT to the group) mid-run`, suite, signal: 'SIGINT', to: 'group', when: 'mid-run', ...(transport ? { transport } : {}) })
    }
    cases.push({ profile: 'shutdown', target: 'transports: SIGTERM to the bench after a run', suite: 'transports', signal: 'SIGTERM', to: 'process', when: 'after-first-run' })
    cases.push({ profile: 'shutdown', target: 'transports: Ctrl-C while its runtime starts', suite: 'transports', signal: 'SIGINT', to: 'group', when: 'during-startup' })
  }
  return cases
}
