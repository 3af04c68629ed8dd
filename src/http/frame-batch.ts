import type { SandboxEvent } from '../core/events.js'

/**
 * The frames of one turn of the event loop, joined into one chunk that every event stream of a
 * kind shares: under load a turn holds many sends, each with several events, and a socket write
 * per frame per stream was most of what twenty open streams cost. At rest a batch leaves at the
 * end of its turn; under load at most every `flushMs`. One batch per sandbox and kind (whole
 * records, summaries), kept in its context, so twenty paused clients hold one copy of their
 * backlog, not twenty. Encoding an event as a frame is the event stream's (`encode`).
 */
export interface FrameBatch {
  /** Where each flushed chunk goes: one function per open stream. */
  readonly streams: Set<(bytes: Uint8Array) => void>
  /** Adds an event's frame; every stream's subscription hands the same event over, once counts. */
  add(event: SandboxEvent): void
  /** Sends what is pending now (at close, before the streams end). */
  flush(): void
}

/** Under load, a batch is written at most this often (one socket write each time). */
export const FLUSH_MS = 10

/**
 * @example
 * const batch = createFrameBatch((event) => encoder.encode(frameOf(event)))
 * batch.streams.add((bytes) => stream.push(bytes))
 * bus.subscribe((event) => batch.add(event))
 */
export function createFrameBatch(
  encode: (event: SandboxEvent) => Uint8Array | null,
  flushMs = FLUSH_MS,
): FrameBatch {
  const streams = new Set<(bytes: Uint8Array) => void>()
  let frames: Uint8Array[] = []
  let last: SandboxEvent | undefined
  let lastFlush = 0
  const flush = () => {
    const pending = frames
    frames = []
    last = undefined
    lastFlush = performance.now()
    if (pending.length === 0) return
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending)
    for (const send of streams) send(bytes)
  }
  return {
    streams,
    flush,
    add(event) {
      if (last === event) return
      last = event
      // Encoded here, once per batch, however many streams share it; null: not for these streams.
      const bytes = encode(event)
      if (!bytes || frames.push(bytes) > 1) return
      const wait = lastFlush + flushMs - performance.now()
      if (wait > 0) setTimeout(flush, wait)
      else setImmediate(flush)
    },
  }
}

/**
 * The batches of a sandbox: one per kind of event stream (whole records, or summaries with
 * `?fields=summary`) and per project its viewers see (null: every project), made on first use.
 */
export interface FrameBatches {
  of(kind: 'full' | 'summary', project: string | null): FrameBatch
}
