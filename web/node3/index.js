// node3: plain node:http in JavaScript. The same listener answers mesh calls
// (Watt injects them in-thread) and TCP calls on its own loopback port.
import { serveHello } from '../../lib/downstream.js'

serveHello('node3')
