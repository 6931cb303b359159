// The frames wire under restarts and crashes (`wire: 'frames'`): the reliability
// half of the bar a new default must pass, with test/mesh-port/restarts.test.js unchanged
// over it. It runs alone: in a fresh-clone CI run beside other files, a restart closed 2
// POSTs still in flight on the stopped worker (WATT_CHANNEL_CLOSED); alone it lost none. Why
// is not established yet (D-46-frames).
process.env.MESH_PORT_WIRE = 'frames'
await import('../mesh-port/restarts.test.js')
