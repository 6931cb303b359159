// type4: node:http in TypeScript, run by Node's type stripping. Same listener for
// mesh and TCP calls, same messaging handler for RPC.
import type { Server } from 'node:http'
import { serveHello } from '../../lib/downstream.js'

export const server: Server = serveHello('type4')
