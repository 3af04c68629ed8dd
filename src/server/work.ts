import type { SendboxConfig } from '../config.js'
import type { EventBus } from '../core/events.js'
import type { Logger } from '../core/logger.js'
import {
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookEndpoint,
} from '../core/webhooks.js'
import { createSharedWebhookDispatcher } from '../core/webhooks-shared.js'
import { createSigner } from '../core/webhooks-signing.js'
import { createWorkRunner, type WorkRunner } from '../core/work-runner.js'
import { isStoreUnavailable, type MessageStore } from '../store/index.js'
import { version } from '../version.js'
import { createPoster } from './webhooks-client.js'

/** What delivers: the webhooks, and on a store several processes share, the claimer of work. */
export interface DeliveryParts {
  webhooks: WebhookDispatcher
  /** Present on a store several processes share (it has a `work` queue). */
  runner: WorkRunner | undefined
}

/** Every project's `--webhook` URLs, then the projects' own (with their secrets). */
function endpointsOf(config: SendboxConfig): WebhookEndpoint[] {
  return [
    ...config.webhooks.map((url) => ({ url })),
    ...(config.projects?.names.flatMap((project) =>
      config.projects!.webhooksOf(project).map(({ url, secret }) => ({ url, project, secret })),
    ) ?? []),
  ]
}

/**
 * The webhook dispatcher on its HTTP client (undici, loaded at once when there is a URL to post
 * to), in this process's memory on the log, or in the store's tables with a claimer of work when
 * several processes share the store.
 *
 * @example
 * const { webhooks, runner } = createDeliveryParts(config, log, events, logger)
 */
export function createDeliveryParts(
  config: SendboxConfig,
  log: MessageStore,
  events: EventBus,
  logger: Logger,
): DeliveryParts {
  const endpoints = endpointsOf(config)
  const poster = createPoster({ timeoutMs: config.webhookTimeoutMs, eager: endpoints.length > 0 })
  const userAgent = `sendbox/${version}`
  if (!log.work || !log.webhooks) {
    const webhooks = createWebhookDispatcher({
      endpoints: config.webhooks,
      projectEndpoints: endpoints.filter((e) => e.project !== undefined),
      secret: config.webhookSecret,
      retries: config.webhookRetries,
      backoffMs: config.webhookBackoffMs,
      timeoutMs: config.webhookTimeoutMs,
      userAgent,
      events,
      poster,
    })
    return { webhooks, runner: undefined }
  }
  const runner = createWorkRunner(log.work, {
    // Longer than a webhook attempt's deadline: a live process finishes its attempt first.
    leaseMs: config.webhookTimeoutMs + 5000,
    report(error) {
      // The store away is said by health and by every request's 503, not once a second here.
      if (!isStoreUnavailable(error)) logger.error('Shared delivery work failed', error)
    },
  })
  const sign = createSigner(config.webhookSecret, userAgent)
  const webhooks = createSharedWebhookDispatcher({
    endpoints,
    urls: config.webhooks,
    signerOf: (endpoint) => (endpoint?.secret ? createSigner(endpoint.secret, userAgent) : sign),
    poster,
    policy: { retries: config.webhookRetries, backoffMs: config.webhookBackoffMs },
    timeoutMs: config.webhookTimeoutMs,
    publish: (delivery) => events.emit({ type: 'webhook', delivery }),
    table: log.webhooks,
    work: log.work,
    runner,
  })
  return { webhooks, runner }
}
