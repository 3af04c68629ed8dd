import type { Template } from '../templates/types.js'

/** The shapes of `sendbox check`'s problems and rules, shared by its parts (snapshots, --visual). */

export type Severity = 'error' | 'warning'

export interface Problem {
  /** Relative to the working folder (absolute while the check runs). */
  file: string
  line: number
  column: number
  /** snake_case, like the API's error codes: template_invalid, missing_variables, … */
  code: string
  message: string
  severity: Severity
  /** A short unified diff shown under the line (`snapshot_changed`). */
  diff?: string
}

/** One successful render, for rules that look at the output. */
export interface RenderedCase {
  template: Template
  /** The fixture case, or null for a render with front-matter examples. */
  caseName: string | null
  /** Absolute path of the fixture file, or of the template for examples. */
  source: string
  variables: Record<string, unknown>
  html: string
  text: string
}

/** An extra check of every rendered case; returns problems with absolute `file`s. */
export type RenderRule = (rendered: RenderedCase) => Problem[] | Promise<Problem[]>
