import type { FileHandle } from 'node:fs/promises'
import { type LogFs, nodeFs } from '../../src/store/log-fs.js'

const MESSAGES: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EACCES: 'permission denied',
  EIO: 'i/o error',
  EROFS: 'read-only file system',
}

/** An error as node:fs makes them: `ENOSPC: no space left on device, write`, with code and syscall. */
export function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${MESSAGES[code] ?? 'failed'}, ${syscall}`), {
    code,
    syscall,
  })
}

/**
 * The log's file system, with a switch: `fail('ENOSPC')` makes every write fail as a full disk
 * does (write(2), whole-file writes, opening a file to write, mkdir), `heal()` ends it. Reads
 * keep working, as they do on a full disk. `writes` counts the write(2) calls that went through.
 */
export function faultyFs(base: LogFs = nodeFs) {
  let failure: string | null = null
  const state = { writes: 0, failed: 0 }
  const check = (syscall: string) => {
    if (failure === null) return
    state.failed++
    throw errnoError(failure, syscall)
  }
  const fs: LogFs = {
    ...base,
    async write(handle: FileHandle, buffer, offset, length, here) {
      check('write')
      state.writes++
      return base.write(handle, buffer, offset, length, here)
    },
    async open(file, flags, mode) {
      if (flags !== 'r') check('open')
      return base.open(file, flags, mode)
    },
    async writeFile(file, data, options) {
      check('open')
      return base.writeFile(file, data, options)
    },
    async mkdir(dir, options) {
      check('mkdir')
      return base.mkdir(dir, options)
    },
  }
  return {
    fs,
    state,
    fail(code: string) {
      failure = code
    },
    heal() {
      failure = null
    },
  }
}

/**
 * The log's file system with torn writes: after `tear(bytes)`, the next write(2) lands `bytes`
 * of its bytes (half of them when not said) and then fails as a full disk does (ENOSPC), as a
 * disk filling mid-line does; `truncate` on its handles fails while `state.truncateFails` is set.
 * Every write goes through it, on the thread pool or on the log's thread alike.
 */
export function tornFs(base: LogFs = nodeFs) {
  const state: { tear: { bytes?: number } | null; truncateFails: boolean } = {
    tear: null,
    truncateFails: false,
  }
  const fs: LogFs = {
    ...base,
    async open(file, flags, mode) {
      const handle = await base.open(file, flags, mode)
      const truncate = handle.truncate.bind(handle)
      handle.truncate = async (length?: number) => {
        if (state.truncateFails) throw errnoError('EIO', 'ftruncate')
        return truncate(length)
      }
      return handle
    },
    async write(handle: FileHandle, buffer, offset, length, here) {
      const tear = state.tear
      if (!tear) return base.write(handle, buffer, offset, length, here)
      state.tear = null
      await base.write(handle, buffer, offset, tear.bytes ?? Math.floor(length / 2), here)
      throw errnoError('ENOSPC', 'write')
    },
  }
  return {
    fs,
    state,
    /** Tears the next write: `bytes` of it land (half when not said), then it fails. */
    tear(bytes?: number) {
      state.tear = { bytes }
    },
  }
}

/**
 * The log's file system with every write(2) shown to `watch` first (its length, and whether the
 * log asked for it on its own thread), which may hold it back by returning a promise.
 *
 * @example
 * const lengths: number[] = []
 * const fs = watchedFs(({ length }) => void lengths.push(length))
 */
export function watchedFs(
  watch: (write: { length: number; here: boolean | undefined }) => void | Promise<void>,
  base: LogFs = nodeFs,
): LogFs {
  return {
    ...base,
    async write(handle, buffer, offset, length, here) {
      await watch({ length, here })
      return base.write(handle, buffer, offset, length, here)
    },
  }
}
