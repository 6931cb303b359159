// @ts-check
// The wire shared by the HTTP wire and the frames wire: one MessagePort between a caller
// thread and a worker carries many streams (connections or requests). A message is a flat
// array of (stream id, payload) pairs:
//   string      data (latin1, one byte per char: the cheapest thing to post)
//   Uint8Array  data above STRING_LIMIT, at most FRAME_BYTES, in a transferred FRAME_BYTES
//               buffer that the reader copies out of and hands back (stream 0)
//   ArrayBuffer (stream 0) a frame buffer handed back, for the writer to fill again
//   n > 0       credit: the peer's reader consumed n bytes
//   object      a request head or an answer head (the frames wire only)
//   FIN         the sender ended its side of that stream (half-close)
//   RESET       that stream is gone here: data sent to it went nowhere (a TCP RST)
//   OPEN        (caller to callee) a new HTTP connection with this id
//   GOAWAY      (callee to caller, stream 0) the worker is stopping: open no new stream;
//               those open finish (HTTP/2's GOAWAY)
//   PING, PONG  (stream 0) "answer if your event loop runs", and the answer
//   REFUSED     (callee to caller) a request that began after GOAWAY was not served: the
//               caller may send it to another worker (HTTP/2's REFUSED_STREAM)
// A closed port (crash, stop, restart, terminate) resets every stream on it.

export const FIN = -1
export const RESET = -2
export const OPEN = -3
export const GOAWAY = -4
export const PING = -5
export const PONG = -6
export const REFUSED = -7

/**
 * Above this, data travels as a transferred buffer: a string is copied four times,
 * twice onto a V8 heap where it waits for a GC (D-string-limit).
 */
export const STRING_LIMIT = 16 * 1024
/**
 * Data above STRING_LIMIT travels in frames of at most this many bytes, each in a buffer of
 * exactly this size that the reader hands back for the writer to fill again (D-frame-handback).
 */
export const FRAME_BYTES = 64 * 1024
/** The flow-control window per stream and direction, unless set. */
export const DEFAULT_WINDOW = 1024 * 1024
/**
 * A caller keeps what it sent since it last heard from the peer, up to this many bytes: the
 * request a stopping worker may refuse, sent again on another worker's stream.
 */
export const REPLAY_BYTES = 64 * 1024
/** Moves one request may make (refused by one stopping worker, then another). */
export const MAX_MOVES = 3

export { flushOf } from '../flush.js'
/** @typedef {import('../flush.js').Flush} Flush */
