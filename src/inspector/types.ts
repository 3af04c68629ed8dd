/**
 * The answers of the inspector's template routes, as types: what src/inspector/templates.ts
 * returns and what the inbox page reads (with `import type`). Types only, importing only other
 * type-only modules: the page's own compiler (tsconfig.inbox.json) takes this file in.
 */
import type { CheckReport } from '../checks/types.js'
import type {
  CaseError,
  CaseRef,
  SnapshotCounts,
  SnapshotDetail,
  SnapshotImage,
  SnapshotStatus,
  SnapshotSummary,
} from '../core/snapshot-types.js'
import type { MessageRecord, Warning } from '../store/types.js'
import type {
  DeclaredVariable,
  FixtureCase,
  SourcePosition,
  TemplateSummary,
} from '../templates/types.js'

/** A fixture case as listed: its name, and why it is unusable when it is. */
export type FixtureCaseInfo = Pick<FixtureCase, 'name' | 'error'>

/** GET /_sandbox/api/templates: each template with its fixture cases. */
export interface TemplateListItem extends TemplateSummary {
  fixtures: FixtureCaseInfo[]
}

/** GET /_sandbox/api/templates/:slug */
export interface TemplateDetail {
  slug: string
  description: string | null
  /** The Liquid source, front matter excluded. */
  body: string
  /** The whole file as it is on disk (front matter included): line numbers match errors'. */
  source: string
  variables: string[]
  /** Dotted paths a send must supply. */
  required: string[]
  declared: Record<string, DeclaredVariable>
  updatedAt: string
  fixtures: FixtureCaseInfo[]
  /** Starting variables for an editor: front-matter examples plus a placeholder per required path. */
  skeleton: Record<string, unknown>
}

/** GET or POST /_sandbox/api/templates/:slug/render */
export interface RenderPreview {
  slug: string
  html: string
  text: string
  warnings: Warning[]
  /** Required paths the variables leave out (they render empty). */
  missing: string[]
  /** The variables it was rendered with (a fixture case's, when one was named). */
  variables: Record<string, unknown>
}

/**
 * POST /_sandbox/api/previews: one render, kept (the newest 50) for a sandboxed frame to load
 * from `url`, with everything else an editor shows about it, the email checks included.
 */
export interface LivePreview extends Omit<RenderPreview, 'slug'> {
  id: string
  url: string
  checks: CheckReport
}

/** One line of a template file, for an excerpt around an error. */
export interface ExcerptLine {
  line: number
  text: string
}

/** Where a template_invalid or render_failed error is; soft answers add the lines around it. */
export interface SourceProblem extends SourcePosition {
  message: string
  /** The file from the server's working directory, as `sendbox check` prints it (soft answers). */
  path?: string
  excerpt?: ExcerptLine[]
}

/** An error as a `?soft=1` answer carries it (the contract's error body, without the wrapper). */
export interface SoftError {
  code: string
  message: string
  details: unknown[]
}

/**
 * A `?soft=1` answer: a problem with what was asked (a template that does not parse, a render
 * that fails, an unknown case) is 200 `{ ok: false, error }`, so a page showing it inline logs
 * no failed request in the browser console.
 */
export type Soft<T> = ({ ok: true } & T) | { ok: false; error: SoftError }

/**
 * A message in `GET /_sandbox/api/messages?fields=summary`: the record without its HTML, text and
 * variables. What a list shows (sender, recipients, subject, template, time, status), at a tenth of
 * the bytes; `GET /_sandbox/api/messages/:id` has the rest.
 */
export type MessageSummary = Omit<MessageRecord, 'html' | 'text' | 'templateVariables'>

/** `GET /_sandbox/api/messages?fields=summary` */
export interface MessageSummaryPage {
  messages: MessageSummary[]
  /** Matches before `limit` and `offset`. */
  total: number
}

/** GET /_sandbox/api/snapshots: every case's snapshot status (docs/snapshots.md). */
export interface SnapshotList {
  snapshots: SnapshotSummary[]
  counts: SnapshotCounts
  /** The snapshot folder, from the working folder. */
  folder: string
}

/** GET /_sandbox/api/snapshots/:template/:case: the case in full, with where each part is served. */
export interface SnapshotCase extends Omit<SnapshotDetail, 'images'> {
  /** Either side as sandboxed HTML for a frame (`?scheme=`, `?images=` apply). */
  html: { snapshot: string; current: string }
  images: Array<SnapshotImage & { urls: Partial<Record<'snapshot' | 'current' | 'diff', string>> }>
}

/** POST /_sandbox/api/snapshots/:template/:case/accept: what accepting wrote (or removed). */
export interface SnapshotAccepted extends CaseRef {
  /** `same` once written; null for an obsolete snapshot, removed. */
  status: SnapshotStatus | null
  /** The files written or removed, from the working folder. */
  files: string[]
  counts: SnapshotCounts
}

/** POST /_sandbox/api/snapshots/accept: every changed and new case that renders, accepted. */
export interface SnapshotsAccepted {
  accepted: CaseRef[]
  /** Cases left as they were: they do not render (the error says why). */
  skipped: Array<CaseRef & { error: CaseError }>
  counts: SnapshotCounts
}
