// @ts-check
// The V8 flags of every Node process the transport bench measures: its Watt
// runtimes and the downstream services it starts outside them (processes, the
// emulated remote host, containers). One list, recorded in each result.
//
// --no-memory-reducer: V8 shrinks the heap of an isolate it finds idle. In a
// round of interleaved runs the main runtime is never idle, but a target of its
// own (mesh-port's runtime, the service processes) waits minutes for its turn,
// and then spends its warm-up and its run regrowing that heap: mesh-port's
// runtime served 30-40% less in its first run after 120 s idle (43k minor faults
// against 4.7k), and about as much as before with the reducer off. Under steady
// load the reducer does not act, so the flag changes no steady-state figure; it
// gives every target the state it would have under steady load.
export const MEASURED_NODE_FLAGS = Object.freeze(['--no-memory-reducer'])
