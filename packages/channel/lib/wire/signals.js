// @ts-check
// The wire of http-port: one MessagePort between a caller thread and a worker carries many streams (HTTP
// connections), a message being a flat array of (stream id, payload) pairs. A payload is data (a latin1 string,
// or a Uint8Array frame, see FRAME_BYTES), credit n > 0 or a signal; a lost port resets all.

/** The sender ended its side of that stream (half-close). */
export const FIN = -1
/** That stream is gone here: data sent to it went nowhere (a TCP RST). */
export const RESET = -2
/** Caller to callee: a new HTTP connection with this id. */
export const OPEN = -3
/** Callee to caller, stream 0: the worker is stopping; open no new stream, those open finish (HTTP/2's GOAWAY). */
export const GOAWAY = -4
/** Stream 0: "answer if your event loop runs". */
export const PING = -5
/** Stream 0: the answer to PING. */
export const PONG = -6
/**
 * Callee to caller: a request that began after GOAWAY was not served, so the caller may send it to another
 * worker (HTTP/2's REFUSED_STREAM).
 */
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
