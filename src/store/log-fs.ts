import * as fsp from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { type Stats, statSync, writeSync } from 'node:fs'

/**
 * The file-system calls the log makes, in one place, so a test can make them fail as a full disk,
 * lost permissions or a dying drive do (ENOSPC, EACCES, EIO) without root or a tiny filesystem,
 * and then heal. Production uses `nodeFs`, node:fs/promises itself (but `stat`, see below).
 * Every byte the log writes to an open file goes through `write`; files written whole (the lock,
 * .gitignore) through `writeFile`.
 */
export interface LogFs {
  open(file: string, flags: string, mode?: number): Promise<FileHandle>
  /**
   * One write(2) at the end of an append-mode (or new) file: on the thread pool, or with `here`
   * on this thread (a few lines while the log is idle: log-file.ts).
   */
  write(
    handle: FileHandle,
    buffer: Buffer,
    offset: number,
    length: number,
    here?: boolean,
  ): Promise<{ bytesWritten: number }>
  stat(file: string): Promise<Stats>
  rename(from: string, to: string): Promise<void>
  unlink(file: string): Promise<void>
  link(existing: string, created: string): Promise<void>
  mkdir(dir: string, options: { recursive: true; mode: number }): Promise<string | undefined>
  writeFile(file: string, data: string, options: { flag: string; mode: number }): Promise<void>
  readFile(file: string, encoding: 'utf8'): Promise<string>
  readdir(dir: string): Promise<string[]>
  realpath(file: string): Promise<string>
}

/**
 * node:fs/promises, as the log uses it.
 *
 * @example await nodeFs.write(handle, Buffer.from('{"op":"clear"}\n'), 0, 15)
 */
export const nodeFs: LogFs = {
  open: (file, flags, mode) => fsp.open(file, flags, mode),
  write: async (handle, buffer, offset, length, here) =>
    here
      ? { bytesWritten: writeSync(handle.fd, buffer, offset, length, null) }
      : handle.write(buffer, offset, length, null),
  // Synchronous: a stat of the log's own path answers from the inode cache in microseconds, where
  // the thread pool's round trip cost ~60 µs of CPU (file-identity.ts, once per batch of lines).
  stat: async (file) => statSync(file),
  rename: fsp.rename,
  unlink: fsp.unlink,
  link: fsp.link,
  mkdir: (dir, options) => fsp.mkdir(dir, options),
  writeFile: (file, data, options) => fsp.writeFile(file, data, options),
  readFile: (file, encoding) => fsp.readFile(file, encoding),
  readdir: (dir) => fsp.readdir(dir),
  realpath: (file) => fsp.realpath(file),
}
