import { randomBytes } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { lineReader, sliceWriter, syncDirectory } from './file-io.js'
import type { LogFs } from './log-fs.js'
import { LOG_HEADER } from './log-format.js'
import type { MessageRecord, Suppression } from './types.js'

/** The log holds sign-in links and codes: owner-only when sendbox creates it. */
export const FILE_MODE = 0o600

/** Which bytes of a file are a line, its `\n` included. */
export interface LineSpan {
  position: number
  length: number
}

export interface CompactionInput {
  file: string
  fs: LogFs
  /** The file at the path is not ours (removed, replaced): owner-only, not its mode. */
  anew?: boolean
  /** The current file, read through the append handle; null: opened here (at start, before any append). */
  source: FileHandle | null
  records: readonly MessageRecord[]
  suppressions: readonly Suppression[]
  /** Where the record's own line is in `source`, if it is there. */
  lineOf(record: MessageRecord): LineSpan | undefined
  /** An older version of the record (before delivery events) whose line is in `source`, if any. */
  baseOf(record: MessageRecord): MessageRecord | undefined
}

export interface Compacted {
  /** The new file, open for appending (and reading): the log's append handle from now on. */
  handle: FileHandle
  /** Its length in bytes. */
  written: number
  /** Where each record's line is in it. */
  spans: [MessageRecord, LineSpan][]
}

/**
 * Writes the live records and suppressions into a temp file next to the log, fsyncs it and
 * renames it over the log: a crash leaves the old file or the new one, never half of one. Lines
 * are copied from the current file where they are there (a record is serialised once), else
 * serialised.
 *
 * @example
 * const { handle, written } = await writeCompacted({ file, fs: nodeFs, source: null, records, suppressions: [], lineOf: () => undefined, baseOf: () => undefined })
 */
export async function writeCompacted(input: CompactionInput): Promise<Compacted> {
  const { file, fs, records, suppressions } = input
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  // Opened for appending: after the rename this same handle is the log's append handle,
  // so there is no window in which the log has no handle or a handle on the old inode.
  // Readable too: the next compaction copies lines out of it.
  const next = await fs.open(temp, 'ax+', FILE_MODE)
  // The lines to copy are in the current file: read through the append handle (the very file
  // they were written to, wherever its name points now), or, at open, before any append,
  // through a handle of its own on the file just read.
  let source = input.source
  const ownSource = source === null
  const spans: [MessageRecord, LineSpan][] = []
  let written: number
  try {
    if (ownSource) source = await fs.open(file, 'r').catch(() => null)
    // The new file keeps the old one's mode: a chmod the user made survives compaction.
    const previousMode = input.anew
      ? null
      : await fs.stat(file).then(
          (s) => s.mode & 0o7777,
          () => null,
        )
    if (previousMode !== null && previousMode !== FILE_MODE) await next.chmod(previousMode)
    const out = sliceWriter((buffer, offset, length) => fs.write(next, buffer, offset, length))
    const lines = source ? lineReader(source) : null
    await out.text(`${LOG_HEADER}\n`)
    for (const suppression of suppressions)
      await out.text(`${JSON.stringify({ op: 'suppress', ...suppression })}\n`)
    for (const record of records) {
      const position = out.length
      const span = input.lineOf(record)
      const bytes = span ? await lines?.line(span.position, span.length) : undefined
      const pieces = bytes ? [bytes] : lines ? await withNewStates(record, input, lines) : undefined
      if (pieces)
        for (const piece of pieces)
          await (typeof piece === 'string' ? out.text(piece) : out.bytes(piece))
      else await out.text(`${JSON.stringify(record)}\n`)
      spans.push([record, { position, length: out.length - position }])
    }
    written = await out.end()
    await next.sync()
    await fs.rename(temp, file)
  } catch (error) {
    await next.close().catch(() => {})
    await fs.unlink(temp).catch(() => {})
    throw error
  } finally {
    if (ownSource) await source?.close().catch(() => {})
  }
  await syncDirectory(path.dirname(file), fs.open)
  return { handle: next, written, spans }
}

/**
 * The line of a record changed by delivery events, from the line of a version before it still
 * in the file: `{"id":…,"status":…,` and `,"recipients":[…]}` replaced, the rest copied. Only
 * when that line is exactly in that shape (as sendbox writes records); else undefined. In
 * three pieces, to be written in order before the next read of `lines`.
 *
 * @example
 * await withNewStates(delivered, input, lineReader(handle)) // ['{"id":…,"status":"delivered",', <bytes>, ',"recipients":[…]}\n']
 */
export async function withNewStates(
  record: MessageRecord,
  input: Pick<CompactionInput, 'lineOf' | 'baseOf'>,
  lines: ReturnType<typeof lineReader>,
): Promise<[string, Buffer, string] | undefined> {
  const base = input.baseOf(record)
  const span = base && input.lineOf(base)
  if (!base || !span || base.id !== record.id) return undefined
  const line = await lines.line(span.position, span.length)
  if (!line) return undefined
  const head = Buffer.from(
    `{"id":${JSON.stringify(base.id)},"status":${JSON.stringify(base.status)},`,
    'utf8',
  )
  const tail = Buffer.from(`,"recipients":${JSON.stringify(base.recipients)}}\n`, 'utf8')
  if (
    line.length < head.length + tail.length ||
    !line.subarray(0, head.length).equals(head) ||
    !line.subarray(line.length - tail.length).equals(tail)
  )
    return undefined
  return [
    `{"id":${JSON.stringify(record.id)},"status":${JSON.stringify(record.status)},`,
    line.subarray(head.length, line.length - tail.length),
    `,"recipients":${JSON.stringify(record.recipients)}}\n`,
  ]
}
