import type { FileHandle } from 'node:fs/promises'
import { READ_CHUNK } from './lines.js'

/** Compaction writes in slices of about this many bytes, to bound memory. */
const WRITE_SLICE = 1 << 20

/** One write(2) of `length` bytes of `buffer` from `offset`, at the end of the file (LogFs.write on a handle). */
export type WriteFn = (
  buffer: Buffer,
  offset: number,
  length: number,
) => Promise<{ bytesWritten: number }>

/** Writes every byte: a write(2) on a regular file may, rarely, write less than asked. */
export async function writeAll(write: WriteFn, bytes: Buffer): Promise<number> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await write(bytes, offset, bytes.length - offset)
    offset += bytesWritten
  }
  return bytes.length
}

/** A new file written in slices of about WRITE_SLICE bytes; `length` counts the bytes given so far. */
export function sliceWriter(write: WriteFn) {
  const slice = Buffer.allocUnsafe(WRITE_SLICE)
  let filled = 0
  let written = 0
  const flush = async () => {
    if (filled > 0) written += await writeAll(write, slice.subarray(0, filled))
    filled = 0
  }
  const writer = {
    length: 0,
    /** Takes a copy (or writes it before returning): `bytes` may be reused once this resolves. */
    async bytes(bytes: Buffer): Promise<number> {
      if (filled + bytes.length > slice.length) await flush()
      if (bytes.length > slice.length) written += await writeAll(write, bytes)
      else filled += bytes.copy(slice, filled)
      writer.length += bytes.length
      return bytes.length
    },
    async text(text: string): Promise<number> {
      const length = Buffer.byteLength(text, 'utf8')
      if (length > slice.length - filled) return writer.bytes(Buffer.from(text, 'utf8'))
      filled += slice.write(text, filled, 'utf8')
      writer.length += length
      return length
    },
    /** Writes what is left; the file's length. */
    async end(): Promise<number> {
      await flush()
      return written
    },
  }
  return writer
}

/**
 * Lines read back from a file by position, a window of READ_CHUNK bytes at a time: the live
 * lines a compaction copies come in file order, so each window serves many of them.
 */
export function lineReader(source: Pick<FileHandle, 'read'>) {
  let window = Buffer.alloc(0)
  /** The window holds the file's bytes [start, start + filled). */
  let start = 0
  let filled = 0
  let failed = false
  return {
    /**
     * The `length` bytes at `position` (a line, its `\n` included), valid until the next call;
     * undefined unless they look like a record's line (`{…}\n`), as when the file was cut
     * short, or when it cannot be read (the record is serialised instead).
     */
    async line(position: number, length: number): Promise<Buffer | undefined> {
      if (failed) return undefined
      if (position < start || position + length > start + filled) {
        if (window.length < length) window = Buffer.allocUnsafe(Math.max(length, READ_CHUNK))
        start = position
        filled = 0
        try {
          while (filled < window.length) {
            const { bytesRead } = await source.read(
              window,
              filled,
              window.length - filled,
              start + filled,
            )
            if (bytesRead === 0) break
            filled += bytesRead
          }
        } catch {
          failed = true
          return undefined
        }
        if (length > filled) return undefined
      }
      const bytes = window.subarray(position - start, position - start + length)
      return length >= 3 &&
        bytes[0] === 0x7b &&
        bytes[length - 2] === 0x7d &&
        bytes[length - 1] === 0x0a
        ? bytes
        : undefined
    },
  }
}

/** Makes a rename durable. Best effort: some platforms (Windows) cannot open a directory. */
export async function syncDirectory(
  dir: string,
  open: (dir: string, flags: string) => Promise<FileHandle>,
): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch {
    // the rename itself is atomic; only its durability across a power cut is at stake
  } finally {
    await handle?.close().catch(() => {})
  }
}
