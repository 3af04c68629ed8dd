import { existsSync } from 'node:fs'
import { relative } from 'node:path'
import { toNodeHandler } from 'h3'
import { consola } from 'consola'
import { resolveConfig, type SendboxOptions } from '../core/config.js'
import { createEventBus } from '../core/events.js'
import { createFaultRegistry, createSharedFaultRegistry } from '../core/faults.js'
import { createRejectionLog } from '../core/rejections.js'
import { createDeliveryEngine } from '../core/delivery.js'
import { createWebhookDispatcher } from '../core/webhooks.js'
import { createPreviewStore } from '../core/previews.js'
import { shareEvents } from '../core/shared-events.js'
import { createFrameBatches } from '../inspector/events.js'
import { openMessageLog, type LogFs, type MessageStore } from '../store/index.js'
import { createTemplateCatalog, snapshotClock, warmPlainText } from '../templates/index.js'
import { createSnapshotBook } from '../core/snapshots.js'
import { openSnapshotFolder } from '../templates/snapshot-folder.js'
import { version } from '../version.js'
import { serverUrl } from '../http/url.js'
import { createApp } from './app.js'
import { withReasonPhrases } from './reason.js'
import { createMessageReader } from '../core/reading.js'
import type { AppContext, Logger } from '../core/context.js'
import { exposureWarning, isLoopbackHost } from './exposure.js'
import { logTemplateChange } from './template-log.js'
import { listen, StartError, type Listener } from './listener.js'
import { setUpTls, type TlsSetup } from './tls.js'
import { createRelayTransport } from './relay.js'

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
  defaults?: { open: boolean; logs: boolean },
  /** For tests: the log's file system (one that fails writes on demand). */
  seams: { logFs?: LogFs } = {},
): Promise<RunningServer> {
  const config = resolveConfig(options, defaults)
  const logger = createLogger(config.logs)
  const events = createEventBus((error) => logger.error('An event listener failed', error))
  const catalog = await createTemplateCatalog({
    templatesDir: config.templatesDir,
    fixturesDir: config.fixturesDir,
    watch: true,
    warn: logger.warn,
  })
  const noTemplates = noTemplatesWarning(config.templatesDir, catalog.count())
  // A missing folder is always worth a word; an empty one only on the console of `serve`.
  if (noTemplates && (noTemplates.missing || config.logs)) logger.warn(noTemplates.message)
  const snapshots = await createSnapshotBook({
    catalog,
    folder: openSnapshotFolder(config.snapshotsDir),
    clock: snapshotClock(config.snapshotNow),
    events,
    warn: logger.warn,
  })
  let log: MessageStore
  try {
    log = config.store
      ? // Loaded only for --store: the client and the SQL stay out of a sandbox on the log.
        await (await import('../store/postgres/index.js')).openPostgresStore({
          url: config.store,
          maxMessages: config.maxMessages,
        })
      : await openMessageLog({
          file: config.dbFile,
          maxMessages: config.maxMessages,
          maxBytes: config.maxLogBytes,
          warn: logger.warn,
          onHealth: (health) => events.emit({ type: 'log', health }),
          ...(seams.logFs ? { fs: seams.logFs } : {}),
        })
  } catch (error) {
    await Promise.all([snapshots.close(), catalog.close()])
    throw error
  }
  const closers = new Set<() => void>()
  let closing: Promise<void> | undefined
  const webhooks = createWebhookDispatcher({
    endpoints: config.webhooks,
    projectEndpoints: config.projects?.names.flatMap((project) =>
      config.projects!.webhooksOf(project).map(({ url, secret }) => ({ url, project, secret })),
    ),
    secret: config.webhookSecret,
    retries: config.webhookRetries,
    backoffMs: config.webhookBackoffMs,
    timeoutMs: config.webhookTimeoutMs,
    userAgent: `sendbox/${version}`,
    events,
  })
  const reader = createMessageReader()
  const ctx: AppContext = {
    config,
    version,
    catalog,
    log,
    events,
    faults: log.faults ? createSharedFaultRegistry(log.faults) : createFaultRegistry(),
    rejections: createRejectionLog(),
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
    onClose(fn) {
      // Once closing, what registers (a wait, an event stream that came in meanwhile) ends now.
      if (closing !== undefined) {
        queueMicrotask(fn)
        return () => {}
      }
      closers.add(fn)
      return () => closers.delete(fn)
    },
  }
  ctx.delivery = createDeliveryEngine(ctx, webhooks)
  // Several processes on one store are one sandbox: their events reach each other's listeners.
  const stopSharing = shareEvents(ctx, (error) => logger.error('A shared event was lost', error))
  const stopTemplateEvents = catalog.onChange((change) => {
    events.emit({ type: 'template', change })
    // One console line per reload or failure, on the console of `serve` (tests stay quiet).
    if (config.logs) logTemplateChange(catalog, change, logger)
  })
  let listener: Listener
  let tls: TlsSetup | null = null
  const network = !isLoopbackHost(config.host)
  try {
    // After the log: a second server on the same log has been refused by then, before it could
    // write the CA's files beside it.
    tls = await setUpTls(config, logger.warn)
    listener = await listen(withReasonPhrases(toNodeHandler(createApp(ctx))), {
      port: config.port,
      host: config.host,
      warn: logger.warn,
      tls,
      network,
    })
  } catch (error) {
    stopTemplateEvents()
    stopSharing()
    ctx.delivery.close()
    webhooks.close()
    await Promise.all([snapshots.close(), catalog.close(), log.close(), tls?.close()])
    throw error
  }
  const port = listener.port
  const url = serverUrl(config.host, port, undefined, tls ? 'https' : 'http')
  const exposed = exposureWarning(config, port)
  if (exposed) logger.warn(exposed)
  // For a phone on the same network: the inbox's URLs there, and a QR code of the first.
  if (network && config.logs) await listener.showNetworkUrls?.('/_sandbox/')

  const close = () =>
    (closing ??= (async () => {
      for (const fn of closers) fn()
      closers.clear()
      stopTemplateEvents()
      stopSharing()
      // Pending steps and deliveries stop here; a later start picks the steps up from the log.
      ctx.delivery.close()
      webhooks.close()
      await listener.close()
      await Promise.all([snapshots.close(), catalog.close(), log.close(), tls?.close()])
    })())

  // After the caller has heard "ready": the first send then finds the text converter loaded,
  // and the snapshot statuses are computed (a template at a time) for the first save to compare.
  setTimeout(() => {
    warmPlainText()
    snapshots.prime()
  }, 0).unref()
  return {
    ctx,
    url,
    port,
    tls: tls && { ca: tls.ca, caFile: tls.caFile },
    close,
  }
}
