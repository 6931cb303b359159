// mesh-port: ipc's code, unchanged. What differs is the runtime it runs in: one
// started from watt.mesh-port.json, whose `undici.interceptors` entry (the
// @watt-lab/channel/mesh-port drop-in) sends every http://<service>.plt.local
// request over http-port instead of Watt's mesh. The registry keeps this route
// unavailable in a runtime without the drop-in, where it would be the mesh.
import type { CreateTransport } from '../transport.ts'
import { create as createIpc } from './ipc.ts'

export const create: CreateTransport = (settings) => createIpc(settings)
