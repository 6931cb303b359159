// The frames wire under restarts and crashes (`wire: 'frames'`): the reliability
// half of the bar a new default must pass, with restarts.test.js unchanged over it.
process.env.MESH_PORT_WIRE = 'frames'
await import('./restarts.test.js')
