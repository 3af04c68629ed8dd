import { fileURLToPath } from 'node:url'
import { existsSync } from 'node:fs'
import { relative } from 'node:path'
import { consola } from 'consola'
import { resolveConfig, type SendboxConfig, type SendboxOptions } from '../config.js'
import { createEventBus, type EventBus } from '../core/events.js'
import { createFaultRegistry } from '../core/faults.js'
import { createRejectionLog, MAX_REJECTIONS } from '../core/rejections.js'
import { createDeliveryEngine } from '../core/delivery.js'
import { createPreviewStore } from '../core/previews.js'
import { shareEvents } from '../core/shared-events.js'
import { createFrameBatches } from '../inspector/frames.js'
import {
  createMemoryFaultTable,
  createMemoryRejectionTable,
  openMessageLog,
  type LogFs,
  type MessageStore,
} from '../store/index.js'
// The modules themselves, not the layer's index: a start loads no renderer nor Liquid.
import { openTemplateCatalog } from '../templates/catalog.js'
import { snapshotClock } from '../templates/clock.js'
import { warmPlainText } from '../templates/plain-text.js'
import { createTextParts } from '../templates/text-parts.js'
import { PACKAGE_ROOT } from '../package-root.js'
import type { TemplateCatalog } from '../templates/types.js'
import { type DeferredSnapshotBook, deferredSnapshotBook } from './snapshot-book.js'
import { version } from '../version.js'
import { serverUrl } from '../http/url.js'
import { type DeferredApp, deferredApp } from './deferred-app.js'
import { createMessageReader } from '../core/reading.js'
import type { AppContext, Logger } from '../http/context.js'
import { exposureWarning, isLoopbackHost } from './exposure.js'
import { logTemplateChange } from './template-log.js'
import { listen, StartError, type Listener } from './listener.js'
import { setUpTls, type TlsSetup } from './tls.js'
import { createRelayTransport } from './relay.js'
import { createSpamScores, type SpamScorer } from '../core/spam.js'
import { createDeliveryParts } from './work.js'

/** The text parts' worker thread (src/templates/text-worker.ts), bundled beside the others. */
const TEXT_WORKER_FILE = fileURLToPath(new URL('dist/sendbox-text-worker.js', PACKAGE_ROOT))

export { StartError }

function createLogger(logs: boolean): Logger {
  const logger = consola.withTag('sendbox')
  // consola hides info in a test environment (NODE_ENV=test, VITEST); `logs` decides here.
  logger.level = 3
  return {
    info: (message) => logs && logger.info(message),
    warn: (message) => logger.warn(message),
    error: (message, error) =>
      error === undefined ? logger.error(message) : logger.error(message, error),
  }
}

/**
 * Why there is nothing to send with, and what to do: null when there are templates. A missing
 * folder does not stop the start (the watcher picks it up when it appears).
 */
export function noTemplatesWarning(
  templatesDir: string,
  count: number,
): { missing: boolean; message: string } | null {
  if (count > 0) return null
  const shown = relative(process.cwd(), templatesDir) || templatesDir
  const fix =
    'Create a starter with `npx sendbox init`, or point --templates at your templates folder.'
  if (!existsSync(templatesDir)) {
    return {
      missing: true,
      message: `The templates folder ${shown} does not exist, so sendbox starts with 0 templates; it picks them up as soon as the folder appears. ${fix}`,
    }
  }
  return {
    missing: false,
    message: `The templates folder ${shown} has no templates yet (<slug>.liquid or <slug>.html). ${fix}`,
  }
}

/** A listening server and the context its routes share; what `startSendbox` builds on. */
export interface RunningServer {
  ctx: AppContext
  /** API base URL, e.g. `http://127.0.0.1:54321`. */
  url: string
  port: number
  /** With `--https`: the local CA's certificate and its file (both null with your own). */
  tls: Pick<TlsSetup, 'ca' | 'caFile'> | null
  /** Stops listening, ends streams and waits, closes the catalog and the log. Idempotent. */
  close(): Promise<void>
}

/**
 * The composition root: validates the options, loads the templates, opens the log, builds the
 * context every route shares, wires the routes and listens. Resolves once the server answers.
 *
 * @example
 * const server = await startServer({ port: 0, memory: true })
 * await fetch(`${server.url}/_sandbox/api/health`)
 * await server.close()
 */
export async function startServer(
  options: SendboxOptions = {},
  defaults?: StartDefaults,
  /** For tests: the log's file system (one that fails writes on demand). */
  seams: { logFs?: LogFs } = {},
): Promise<RunningServer> {
  const config = resolveConfig(options, defaults)
  const logger = createLogger(config.logs)
  const events = createEventBus((error) => logger.error('An event listener failed', error))
  const { catalog, loaded } = await openTemplates(config, logger, defaults?.templatesAfterReady)
  const snapshots = deferredSnapshotBook({
    catalog,
    dir: config.snapshotsDir,
    clock: snapshotClock(config.snapshotNow),
    events,
    warn: logger.warn,
  })
  let log: MessageStore
  try {
    log = await openStore(config, logger, events, seams)
  } catch (error) {
    await Promise.all([snapshots.close(), catalog.close()])
    throw error
  }
  const { ctx, closers, stop } = assembleContext({
    config,
    logger,
    events,
    catalog,
    log,
    snapshots,
  })
  const app = deferredApp(ctx, loaded, { turnAfterHealth: defaults?.templatesAfterReady === true })
  const { listener, tls } = await listenFor(ctx, app, stop)
  const port = listener.port
  const url = serverUrl(config.host, port, undefined, tls ? 'https' : 'http')
  const exposed = exposureWarning(config, port)
  if (exposed) logger.warn(exposed)
  // For a phone on the same network: the inbox's URLs there, and a QR code of the first.
  if (!isLoopbackHost(config.host) && config.logs) await listener.showNetworkUrls?.('/_sandbox/')
  const close = () =>
    (closers.closing ??= (async () => {
      for (const fn of closers.fns) fn()
      closers.fns.clear()
      await stop(listener.close, tls)
    })())
  startInBackground(ctx, { app, snapshots, loaded })
  return { ctx, url, port, tls: tls && { ca: tls.ca, caFile: tls.caFile }, close }
}

/** `startServer`'s defaults (`resolveConfig`'s), and when the templates are compiled. */
export interface StartDefaults {
  open: boolean
  logs: boolean
  /**
   * `serve`: ready once the port is open, the templates compiled right after (its requests wait
   * for them). The library resolves with them compiled: its callers may read `ctx.catalog`.
   */
  templatesAfterReady?: boolean
}

/**
 * The catalog, its fixtures read and its templates listed (the warning of a folder without any
 * said); compiled now, or with `afterReady` by `loaded()`, which never fails (a failure is logged).
 */
async function openTemplates(
  config: SendboxConfig,
  logger: Logger,
  afterReady = false,
): Promise<{ catalog: TemplateCatalog; loaded: () => Promise<void> }> {
  const opened = await openTemplateCatalog({
    templatesDir: config.templatesDir,
    fixturesDir: config.fixturesDir,
    // Once the port is open (below): chokidar's first scan is no part of the start.
    watch: false,
    warn: logger.warn,
  })
  const noTemplates = noTemplatesWarning(config.templatesDir, opened.templateFiles)
  // A missing folder is always worth a word; an empty one only on the console of `serve`.
  if (noTemplates && (noTemplates.missing || config.logs)) logger.warn(noTemplates.message)
  if (!afterReady) await opened.load()
  let loading: Promise<void> | undefined
  const loaded = () =>
    (loading ??= opened
      .load()
      .catch((error: unknown) => logger.error('Could not load the templates', error)))
  return { catalog: opened.catalog, loaded }
}

/** The message log (or, with `--store`, the PostgreSQL store), open. */
async function openStore(
  config: SendboxConfig,
  logger: Logger,
  events: EventBus,
  seams: { logFs?: LogFs },
): Promise<MessageStore> {
  if (config.store) {
    // Loaded only for --store: the client and the SQL stay out of a sandbox on the log.
    const { openPostgresStore } = await import('../store/postgres/index.js')
    return openPostgresStore({
      url: config.store,
      maxMessages: config.maxMessages,
      // The database away, and back: the inbox says so (docs/team.md).
      onHealth: (health) => events.emit({ type: 'log', health }),
      info: logger.info,
    })
  }
  return openMessageLog({
    file: config.dbFile,
    maxMessages: config.maxMessages,
    maxBytes: config.maxLogBytes,
    warn: logger.warn,
    onHealth: (health) => events.emit({ type: 'log', health }),
    ...(seams.logFs ? { fs: seams.logFs } : {}),
  })
}

/** What closing runs: the callbacks registered with `ctx.onClose`, and whether it has begun. */
interface Closers {
  fns: Set<() => void>
  closing: Promise<void> | undefined
}

/**
 * The context every route shares, with the delivery engine, the webhook dispatcher and the
 * event sharing running on it; `stop` ends them and closes what the context holds (after the
 * listener, when there is one). Long because it is the context's composition: each part on a line.
 */
function assembleContext(parts: {
  config: SendboxConfig
  logger: Logger
  events: EventBus
  catalog: TemplateCatalog
  log: MessageStore
  snapshots: DeferredSnapshotBook
}): {
  ctx: AppContext
  closers: Closers
  stop: (closeListener: (() => Promise<void>) | undefined, tls: TlsSetup | null) => Promise<void>
} {
  const { config, logger, events, catalog, log, snapshots } = parts
  const closers: Closers = { fns: new Set(), closing: undefined }
  // Webhooks, and on a store several processes share, the claimer of their delivery work.
  const { webhooks, runner } = createDeliveryParts(config, log, events, logger)
  const reader = createMessageReader()
  const ctx: AppContext = {
    config,
    version,
    catalog,
    texts: createTextParts(TEXT_WORKER_FILE),
    log,
    events,
    faults: createFaultRegistry(log.faults ?? createMemoryFaultTable()),
    rejections: createRejectionLog(log.rejections ?? createMemoryRejectionTable(MAX_REJECTIONS)),
    // Replaced just below: the engine needs the context it is part of.
    delivery: undefined as unknown as AppContext['delivery'],
    webhooks,
    logger,
    previews: createPreviewStore(),
    frames: createFrameBatches(reader),
    reader,
    snapshots,
    relay: config.relay
      ? createRelayTransport(config.relay, { timeoutMs: config.relayTimeoutMs })
      : null,
    spam: createSpamScores({ events, scorer: spamScorer(config), keep: config.maxMessages }),
    onClose: onCloseOf(closers),
  }
  ctx.delivery = createDeliveryEngine(ctx, webhooks, runner)
  // Several processes on one store are one sandbox: their events reach each other's listeners.
  const stopSharing = shareEvents(ctx, (error) => logger.error('A shared event was lost', error))
  const stopTemplateEvents = catalog.onChange((change) => {
    events.emit({ type: 'template', change })
    // One console line per reload or failure, on the console of `serve` (tests stay quiet).
    if (config.logs) logTemplateChange(catalog, change, logger)
  })
  const stop = async (closeListener: (() => Promise<void>) | undefined, tls: TlsSetup | null) => {
    stopTemplateEvents()
    stopSharing()
    // Pending steps and deliveries stop here; a later start picks the steps up from the log
    // (on a shared store, the other processes claim them once their leases run out).
    runner?.close()
    ctx.delivery.close()
    webhooks.close()
    await closeListener?.()
    await Promise.all([snapshots, catalog, ctx.texts, log, tls].map((part) => part?.close()))
  }
  return { ctx, closers, stop }
}

/** `--spamassassin`'s client, loaded at the first score (a start without the flag never reads it). */
function spamScorer(config: SendboxConfig): SpamScorer | null {
  const address = config.spamassassin
  if (!address) return null
  return async (eml) => {
    const { scoreWithSpamd } = await import('../checks/spamd.js')
    return scoreWithSpamd(address, eml, { timeoutMs: config.spamassassinTimeoutMs })
  }
}

/** `ctx.onClose`: registers what closing runs, or runs it at once when closing has begun. */
function onCloseOf(closers: Closers): AppContext['onClose'] {
  return (fn) => {
    // Once closing, what registers (a wait, an event stream that came in meanwhile) ends now.
    if (closers.closing !== undefined) {
      queueMicrotask(fn)
      return () => {}
    }
    closers.fns.add(fn)
    return () => closers.fns.delete(fn)
  }
}

/** TLS when asked, and the listener; a failure stops what the context runs, then throws. */
async function listenFor(
  ctx: AppContext,
  app: DeferredApp,
  stop: (closeListener: undefined, tls: TlsSetup | null) => Promise<void>,
): Promise<{ listener: Listener; tls: TlsSetup | null }> {
  const { config, logger } = ctx
  let tls: TlsSetup | null = null
  try {
    // After the log: a second server on the same log has been refused by then, before it could
    // write the CA's files beside it.
    tls = await setUpTls(config, logger.warn)
    const listener = await listen(app.handler, {
      port: config.port,
      host: config.host,
      warn: logger.warn,
      tls,
      network: !isLoopbackHost(config.host),
    })
    return { listener, tls }
  } catch (error) {
    await stop(undefined, tls)
    throw error
  }
}

/**
 * What waits for the port to be open starts now, in the background: the HTTP app and the
 * templates first (a request that comes meanwhile waits for both; health comes first, from an
 * app of its own: ./deferred-app.ts), the template watcher (it
 * takes in what changed since the catalog read the folders, so a file written right after
 * start is reloaded), the snapshot book and its watcher, whose statuses are then computed (a
 * template at a time) for the first save to compare; and, once the caller has heard "ready",
 * the text converter, so that the first send finds it loaded.
 */
function startInBackground(
  ctx: AppContext,
  parts: { app: DeferredApp; snapshots: DeferredSnapshotBook; loaded: () => Promise<void> },
): void {
  const { app, snapshots, loaded } = parts
  // Not once closing has begun (a stop right after ready): the book would start its watcher then.
  let closing = false
  ctx.onClose(() => {
    closing = true
  })
  // The snapshot book as soon as the templates are in (at once for the library, which compiled
  // them before ready): a snapshot file changed right after start must be seen. The templates
  // load after the health app (./deferred-app.ts): beside it they delayed the first answer.
  void app
    .healthFirst()
    .then(loaded)
    .then(() => {
      if (closing) return
      snapshots.start()
      snapshots.prime()
    })
  // The whole app first (the templates come after the health app, above), the template
  // watcher's scan after it: beside the app it slowed a first request down (first send answered
  // 374 → 483 ms). Starting later loses nothing: the watcher takes in what changed since the
  // catalog read the folders.
  void app.load().then(() =>
    setTimeout(() => {
      warmPlainText()
      if (closing) return
      ctx.catalog
        .startWatching()
        .catch((error: unknown) =>
          ctx.logger.warn(`Could not watch the templates: ${(error as Error).message}`),
        )
    }, 0).unref(),
  )
}
