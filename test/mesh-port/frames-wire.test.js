// The drop-in's frames wire (`wire: 'frames'`, lib/mesh-port/frames/) held to the
// HTTP wire's bar: the semantics and kinds tests, unchanged, with every 'drop-in'
// fixture on watt.mesh-frames.json (test/helpers/mesh-fixture.js).
process.env.MESH_PORT_WIRE = 'frames'
await import('./semantics.test.js')
await import('./kinds.test.js')
