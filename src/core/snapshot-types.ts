/** The shapes of snapshots (docs/snapshots.md#while-you-edit-the-server) that the bus, the book and the routes share. */

export type SnapshotStatus = 'same' | 'changed' | 'new' | 'obsolete'

/** A case: a template and one of its fixture cases (`default` without fixtures). */
export interface CaseRef {
  template: string
  case: string
}

/** Why a case has no render: a template, fixture or render problem, as `sendbox check` names it. */
export interface CaseError {
  code:
    | 'template_not_found'
    | 'template_invalid'
    | 'missing_variables'
    | 'render_failed'
    | 'fixture_invalid'
  message: string
}

/** A snapshot's bytes: the HTML and the text, normalised (./snapshot-format.ts). */
export interface SnapshotText {
  html: string
  text: string
}

/** One case in the list: its status, and why it does not render when it does not. */
export interface SnapshotSummary extends CaseRef {
  status: SnapshotStatus
  error?: CaseError
}

export type SnapshotCounts = Record<SnapshotStatus, number>

/** A status that changed: what a `snapshot` event carries. `status` null: the case is gone. */
export interface SnapshotChange extends CaseRef {
  status: SnapshotStatus | null
  previous: SnapshotStatus | null
  counts: SnapshotCounts
}

export interface SnapshotImage {
  variant: string
  width: number
  scheme: 'light' | 'dark'
  /** Which of its images exist. */
  snapshot: boolean
  current: boolean
  diff: boolean
}

/** One case in full: both renders, their diffs, its images. */
export interface SnapshotDetail extends SnapshotSummary {
  snapshot: { html: string | null; text: string | null }
  current: SnapshotText | null
  /** Unified diffs from the snapshot to the current render; null where they are the same. */
  diff: { html: string | null; text: string | null }
  /** The snapshot's files, as shown from the working folder. */
  files: { html: string; text: string }
  images: SnapshotImage[]
}
