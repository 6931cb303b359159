// Builds the entry's transports from the registry (lib/topology.js): one module per
// transport, `create(settings)` each, and the per-service in-flight bound applied
// from the registry's `crossesThreads` flag rather than by hand.
import { pathToFileURL } from 'node:url'
import { availabilityOf, TRANSPORTS } from '../../../lib/topology.js'
import type { Settings } from './settings.ts'
import type { CreateTransport, Transport } from './transport.ts'
import { limitInFlight } from './transports/in-flight-limit.ts'

/** A registered transport: ready to call, or not available here and why. */
export type LoadedTransport =
  | { name: string, available: true, transport: Transport }
  | { name: string, available: false, reason: string }

/** Where a transport's module lives: web/tsfastify/lib/transports/<name>.ts unless the record says. */
export function transportModuleUrl (record: { name: string, module?: string }): string {
  return record.module ? pathToFileURL(record.module).href : new URL(`./transports/${record.name}.ts`, import.meta.url).href
}

export async function loadTransports (settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<LoadedTransport[]> {
  const loaded: LoadedTransport[] = []
  for (const record of TRANSPORTS) {
    const availability = availabilityOf(record.name, env)
    if (!availability.available) {
      loaded.push({ name: record.name, available: false, reason: availability.reason })
      continue
    }
    const url = transportModuleUrl(record)
    const { create } = await import(url) as { create?: CreateTransport }
    if (typeof create !== 'function') throw new TypeError(`${url} must export create(settings) (transport ${record.name})`)
    const transport = await create({ ...settings, name: record.name })
    // Every transport that crosses to another thread carries at most the same number of
    // calls per service at once: its own bound (tcp's pool) or a FIFO queue here.
    const bounded = record.crossesThreads && !transport.limitsInFlight
      ? limitInFlight(transport, settings.callsInFlightPerService)
      : transport
    loaded.push({ name: record.name, available: true, transport: bounded })
  }
  return loaded
}
