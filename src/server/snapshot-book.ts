/**
 * The server's snapshot book, built once the port is open. Building it loads the snapshot
 * modules (case rendering, the folder, the HTML formatting) and starts a watcher on the snapshot
 * folder: none of which the first request needs. The routes see the book at once (`ctx.snapshots`);
 * a call made before it is built waits for it.
 */
import type { SnapshotBook, SnapshotBookOptions } from '../core/snapshots.js'

/** The book's options, with the folder as a path: it is opened when the book is built. */
export type DeferredBookOptions = Omit<SnapshotBookOptions, 'folder'> & { dir: string }

/** The book the routes use, and `start()`, which builds the real one (once). */
export interface DeferredSnapshotBook extends SnapshotBook {
  start(): void
}

/**
 * A book whose calls wait until `start()` has built the real one.
 *
 * @example
 * const snapshots = deferredSnapshotBook({ catalog, dir, clock, events, warn })
 * // … once listening
 * snapshots.start()
 * snapshots.prime()
 */
export function deferredSnapshotBook(options: DeferredBookOptions): DeferredSnapshotBook {
  let resolveBook!: (book: Promise<SnapshotBook>) => void
  const built = new Promise<SnapshotBook>((resolve) => {
    resolveBook = resolve
  })
  // Observed here: a book that failed is reported once, by `start`, not as an unhandled rejection.
  built.catch(() => {})
  let started: Promise<SnapshotBook> | undefined
  const start = () => {
    started ??= Promise.all([
      import('../core/snapshots.js'),
      import('../templates/snapshot-folder.js'),
    ]).then(([book, folder]) =>
      book.createSnapshotBook({ ...options, folder: folder.openSnapshotFolder(options.dir) }),
    )
    // A book that cannot be built is a warning; its routes then answer the error.
    started.catch((error: unknown) =>
      options.warn(`Could not watch the snapshots: ${(error as Error).message}`),
    )
    resolveBook(started)
  }
  return {
    dir: options.dir,
    start,
    prime: () =>
      void built.then(
        (book) => book.prime(),
        () => {},
      ),
    list: async () => (await built).list(),
    detail: async (template, caseName) => (await built).detail(template, caseName),
    accept: async (template, caseName) => (await built).accept(template, caseName),
    acceptAll: async () => (await built).acceptAll(),
    image: async (template, caseName, variant, kind) =>
      (await built).image(template, caseName, variant, kind),
    // Never started (a start that failed before listening): nothing to close.
    close: async () => {
      const book = started === undefined ? undefined : await started.catch(() => undefined)
      await book?.close()
    },
  }
}
