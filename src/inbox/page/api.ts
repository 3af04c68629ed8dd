/** The inspector API, as the page uses it. The record types are the server's own (type-only imports, erased in the build). */

export type {
  Address,
  Warning,
  ReadRecord as MessageRecord,
  MessageLink,
  MessagePage,
  MessageStatus,
  Recipient,
  RecipientStatus,
  RecipientEvent,
  Release,
  Suppression,
} from '../../store/types.js'
export type { WebhookDelivery, WebhookAttempt } from '../../core/webhook-types.js'
/** What the simulate buttons post. */
export type { SimulatedEvent } from '../../core/delivery.js'
export type { Severity, Finding, ClientScore, CheckReport } from '../../checks/types.js'
export type { SpamReport, SpamRule } from '../../checks/spamd-protocol.js'
export type { DeclaredVariable, TemplateChange } from '../../templates/types.js'
export type {
  ExcerptLine,
  FixtureCaseInfo,
  LivePreview,
  MessageSummary,
  MessageSummaryPage,
  Soft,
  SoftError,
  SourceProblem,
  TemplateDetail,
  TemplateListItem,
  SnapshotAccepted,
  SnapshotCase,
  SnapshotList,
  SnapshotsAccepted,
} from '../../inspector/types.js'
export type {
  CaseError,
  CaseRef,
  SnapshotChange,
  SnapshotCounts,
  SnapshotImage,
  SnapshotStatus,
  SnapshotSummary,
} from '../../core/snapshot-types.js'
import type {
  ReadRecord as MessageRecord,
  MessageStatus,
  RecipientEvent,
  RecipientStatus,
  Suppression,
} from '../../store/types.js'
import type { WebhookDelivery } from '../../core/webhook-types.js'
import type { SimulatedEvent } from '../../core/delivery.js'
import type { CheckReport } from '../../checks/types.js'
import type { SpamReport } from '../../checks/spamd-protocol.js'
import type {
  LivePreview,
  MessageSummaryPage,
  SnapshotAccepted,
  SnapshotCase,
  SnapshotList,
  SnapshotsAccepted,
  Soft,
  SoftError,
  TemplateDetail,
  TemplateListItem,
} from '../../inspector/types.js'

export interface Health {
  status: string
  version: string
  templates: number
  messages: number
  dropped?: number
  /** Whether the log is written: `ok`, `write_failed` (then `logError`), `memory`. */
  log?: string
  logError?: { file: string; reason: string; message: string; since: string }
}

/** The SSE `status` event: a recipient event, and the message's status after it. */
export interface StatusChange {
  id: string
  status: MessageStatus
  recipient: string
  recipientIndex: number
  recipientStatus: RecipientStatus
  event: RecipientEvent
}

export interface WebhookList {
  endpoints: string[]
  deliveries: WebhookDelivery[]
  total: number
  pending: number
}

/** A suppression as the list answers it: with the subject of the message that added it, while the log has it. */
export type SuppressionEntry = Suppression & { subject?: string }

/** `GET /_sandbox/api/relay`: whether a release is possible, through which server, to whom. */
export interface RelayInfo {
  configured: boolean
  url: string | null
  allow: string[]
}

/** `POST …/release`'s answer. */
export interface ReleaseResult {
  accepted: string[]
  rejected: string[]
  response: string
}

/** An inspector error, in the contract's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message)
  }
}

export const API = '/_sandbox/api'

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(`${API}${path}`, { cache: 'no-store', ...init })
  } catch {
    throw new ApiError(0, 'network_error', 'sendbox is not answering; is it still running?')
  }
  if (response.status === 204) return undefined as T
  // Signed out elsewhere, or the token was taken out of the projects file: the page starts
  // again, which asks for a token (the sign-in's own refusal is the form's to show).
  if (
    response.status === 401 &&
    path !== '/session' &&
    response.headers.get('www-authenticate') === 'Token'
  ) {
    location.reload()
  }
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: unknown[] }
  } | null
  if (!response.ok) {
    const error = body?.error
    throw new ApiError(
      response.status,
      error?.code ?? 'http_error',
      error?.message ?? `The request failed with status ${response.status}.`,
      error?.details ?? [],
    )
  }
  return body as T
}

export const messagePath = (id: string) => `${API}/messages/${encodeURIComponent(id)}`
export const templatePath = (slug: string) => `${API}/templates/${encodeURIComponent(slug)}`
const snapshotPath = (template: string, name: string) =>
  `/snapshots/${encodeURIComponent(template)}/${encodeURIComponent(name)}`

/** Who the page is signed in as (GET /_sandbox/api/session). */
export interface Session {
  /** Whether the sandbox has projects; without, there is nothing to sign in to. */
  projects: boolean
  signedIn: boolean
  /** The project the page shows; null: every project (an admin's token). */
  project: string | null
  admin: boolean
}

export const api = {
  health: () => request<Health>('/health'),
  session: () => request<Session>('/session'),
  /** Sets the session cookie (HttpOnly: this page never holds the token after this call). */
  signIn: (token: string) => request<Session>('/session', json('POST', { token })),
  signOut: () => request<void>('/session', { method: 'DELETE' }),
  /** A page of the list: summaries (no HTML, text or variables), `offset` and `limit` in the query. */
  summaries: (query: URLSearchParams) =>
    request<MessageSummaryPage>(`/messages?fields=summary&${query}`),
  message: (id: string) => request<MessageRecord>(`/messages/${encodeURIComponent(id)}`),
  deleteMessage: (id: string) =>
    request<void>(`/messages/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  clearMessages: (query: URLSearchParams) =>
    request<void>(`/messages?${query}`, { method: 'DELETE' }),
  templates: () => request<{ templates: TemplateListItem[] }>('/templates'),
  template: (slug: string) => request<TemplateDetail>(`/templates/${encodeURIComponent(slug)}`),
  /**
   * One render for the variables editor, with all its tabs need (HTML, text, warnings, missing
   * variables, checks), kept by the server for a frame to load from `url`. Soft: a template or
   * render problem comes back as `{ ok: false, error }`, not as a failed request.
   */
  preview: (
    body:
      | { template: string; variables: Record<string, unknown> }
      | { template: string; case?: string },
  ) => request<Soft<LivePreview>>('/previews?soft=1', json('POST', body)),
  saveFixture: (
    slug: string,
    name: string,
    variables: Record<string, unknown>,
    overwrite = false,
  ) =>
    request<{ name: string; file: string }>(
      `/templates/${encodeURIComponent(slug)}/fixtures`,
      json('POST', { name, variables, ...(overwrite ? { overwrite: true } : {}) }),
    ),
  messageChecks: (id: string) => request<CheckReport>(`/messages/${encodeURIComponent(id)}/checks`),
  /** The message's SpamAssassin score (409 spam_check_not_configured without --spamassassin). */
  /** `GET /_sandbox/api/spam`: whether `--spamassassin` was given, asked once. */
  spamCheck: () => request<{ configured: boolean; spamd: string | null }>('/spam'),
  messageSpam: (id: string) => request<SpamReport>(`/messages/${encodeURIComponent(id)}/spam`),
  simulate: (id: string, event: SimulatedEvent) =>
    request<MessageRecord>(`/messages/${encodeURIComponent(id)}/events`, json('POST', event)),
  /** Whether a message can be released, through which server, to whom (never credentials). */
  relay: () => request<RelayInfo>('/relay'),
  /** Sends a stored message on to real addresses through the relay. */
  release: (id: string, to: string[]) =>
    request<ReleaseResult>(`/messages/${encodeURIComponent(id)}/release`, json('POST', { to })),
  webhooks: (limit = 200) => request<WebhookList>(`/webhooks?limit=${limit}`),
  retryWebhook: (id: string) =>
    request<WebhookDelivery>(`/webhooks/${encodeURIComponent(id)}/retry`, { method: 'POST' }),
  suppressions: () => request<{ suppressions: SuppressionEntry[]; total: number }>('/suppressions'),
  deleteSuppression: (address: string, project: string) =>
    request<void>(
      `/suppressions/${encodeURIComponent(address)}?project=${encodeURIComponent(project)}`,
      { method: 'DELETE' },
    ),
  clearSuppressions: () => request<void>('/suppressions', { method: 'DELETE' }),
  /** Every case's snapshot status (docs/snapshots.md). */
  snapshots: () => request<SnapshotList>('/snapshots'),
  /** A case in full: both sides, the diffs, where each side and each screenshot is served. */
  snapshot: (template: string, name: string) => request<SnapshotCase>(snapshotPath(template, name)),
  acceptSnapshot: (template: string, name: string) =>
    request<SnapshotAccepted>(`${snapshotPath(template, name)}/accept`, { method: 'POST' }),
  acceptAllSnapshots: () => request<SnapshotsAccepted>('/snapshots/accept', { method: 'POST' }),
}

/** A failed request, as a soft answer's error: the page shows both the same way. */
export const softError = (error: unknown): SoftError =>
  error instanceof ApiError
    ? { code: error.code, message: error.message, details: error.details }
    : { code: 'network_error', message: String(error), details: [] }

function json(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
}
