// @ts-check
// `reuseport`: one of N independent processes listening on the same port with
// SO_REUSEPORT; the kernel spreads new connections across them (no primary).
import { createServer } from 'node:http'
import { handle, HOST, portFromEnv } from '../handler.js'

createServer(handle).listen({ port: portFromEnv(), host: HOST, reusePort: true })
