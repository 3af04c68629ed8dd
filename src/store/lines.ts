import type { FileHandle } from 'node:fs/promises'

/** The reader asks the file for this many bytes at a time (and more for a longer line). */
export const READ_CHUNK = 1 << 20

/**
 * Calls `onLine` for every line of the file, in order, without reading the file into one
 * buffer or one string: it reads `chunk` bytes at a time and splits them on the byte `\n`,
 * which never occurs inside a multi-byte UTF-8 character, so a line is always decoded whole
 * however the chunks cut it. A line longer than the chunk grows the buffer to hold it.
 *
 * `bytes` is the line without its `\n` (a `\r` before it is left in), a view into the reader's
 * buffer that is valid only during the call; `position` is its first byte's offset in the file;
 * `terminated` is false only for a last line the file does not end with `\n`. Resolves with the
 * number of bytes read.
 *
 * @example
 * await readLines(handle, (bytes, position, terminated) => lines.push(bytes.toString('utf8')))
 */
export async function readLines(
  handle: Pick<FileHandle, 'read'>,
  onLine: (bytes: Buffer, position: number, terminated: boolean) => void,
  chunk = READ_CHUNK,
): Promise<number> {
  let buffer = Buffer.allocUnsafe(chunk)
  /** The file offset of buffer[0]. */
  let base = 0
  /** Bytes of the buffer holding file data: a partial line, then what the last read added. */
  let filled = 0
  for (;;) {
    if (filled === buffer.length) {
      // One line fills the whole buffer: make room for the rest of it.
      const larger = Buffer.allocUnsafe(buffer.length * 2)
      buffer.copy(larger, 0, 0, filled)
      buffer = larger
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, base + filled)
    if (bytesRead === 0) {
      if (filled > 0) onLine(buffer.subarray(0, filled), base, false)
      return base + filled
    }
    // Only the new bytes can hold a newline the last pass did not see.
    let searchFrom = filled
    filled += bytesRead
    const data = buffer.subarray(0, filled)
    let start = 0
    for (let end = data.indexOf(10, searchFrom); end !== -1; end = data.indexOf(10, searchFrom)) {
      onLine(data.subarray(start, end), base + start, true)
      start = searchFrom = end + 1
    }
    // Keep the partial line, at the front.
    if (start > 0) {
      buffer.copy(buffer, 0, start, filled)
      base += start
      filled -= start
    }
  }
}
