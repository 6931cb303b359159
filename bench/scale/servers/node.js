// @ts-check
// `node`: one node:http process. Also the script PM2 runs in cluster mode.
import { createServer } from 'node:http'
import { handle, HOST, portFromEnv } from '../handler.js'

createServer(handle).listen({ port: portFromEnv(), host: HOST })
