// What every transport implements: one verified call to one downstream service.
// Each transport is one file in ./transports/<name>.ts exporting `create`, and one
// line in lib/topology.js; the entry loads them from there.
import type { Fault } from '../../../lib/contract.js'
import type { Settings } from './settings.ts'

export interface CallRequest {
  service: string
  size: number
  fault?: Fault
}

export interface CallResult {
  service: string
  status: number
  bytes: number
}

export interface Transport {
  readonly name: string
  /**
   * True when the transport itself keeps at most `callsInFlightPerService` calls in
   * flight per service (tcp's pool). Otherwise the entry wraps every transport that
   * crosses threads in a FIFO queue of that size.
   */
  readonly limitsInFlight?: boolean
  /** Resolves with a verified result, or rejects with a DownstreamError or the signal's reason. */
  call (request: CallRequest, signal: AbortSignal): Promise<CallResult>
  close? (): Promise<void>
}

/** What the entry hands each transport's factory. */
export interface TransportSettings extends Settings {
  /** the transport's registered name (its route and the `transport` field of answers) */
  name: string
}

/** What every file in ./transports/<name>.ts exports. */
export type CreateTransport = (settings: TransportSettings) => Transport | Promise<Transport>

/** A downstream answered, but not what the contract says: the entry answers 502. */
export class DownstreamError extends Error {
  readonly service: string
  constructor (service: string, reason: string) {
    super(`${service} ${reason}`)
    this.name = 'DownstreamError'
    this.service = service
  }
}

/** The query string a transport forwards to `/hello` (HTTP transports). */
export function helloPath ({ size, fault }: CallRequest): string {
  let path = `/hello?size=${size}`
  if (fault?.delay) path += `&delay=${fault.delay}`
  if (fault?.corrupt) path += '&corrupt=1'
  return path
}
