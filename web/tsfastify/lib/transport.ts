// What every transport implements: one verified call to one downstream service.
import type { Fault } from '../../../lib/contract.js'

export const TRANSPORT_NAMES = ['ipc', 'tcp', 'rpc', 'direct'] as const
export type TransportName = typeof TRANSPORT_NAMES[number]

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
  readonly name: TransportName
  /** Resolves with a verified result, or rejects with a DownstreamError or the signal's reason. */
  call (request: CallRequest, signal: AbortSignal): Promise<CallResult>
  close? (): Promise<void>
}

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
