// @ts-check
// The V8 flags of every Node process the transport bench measures: its Watt
// runtimes and the downstream services it starts outside them (processes, the
// emulated remote host, containers). One list, recorded in each result.
//
// --no-memory-reducer: V8 shrinks the heap of an isolate it finds idle, and a target
// that waits minutes for its turn then spends its run regrowing it. Under steady load
// the reducer does not act, so the flag gives every target that state (D-memory-reducer).
export const MEASURED_NODE_FLAGS = Object.freeze(['--no-memory-reducer'])
