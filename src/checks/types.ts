/** Email checks computed from rendered HTML: shared by the inspector, the inbox and `sendbox check`. */

export type Severity = 'error' | 'warning' | 'info'
export type CheckName = 'size' | 'clients' | 'images' | 'links' | 'text' | 'accessibility'

export interface Finding {
  check: CheckName
  /** snake_case, stable: e.g. `gmail_clipping`, `img_missing_alt`, `localhost_link`. */
  code: string
  severity: Severity
  message: string
  /** How to fix it, as a sentence. */
  fix: string
  /** 1-based line in the rendered HTML where it applies, when there is one. */
  line: number | null
  /** 1-based column of the element's start tag on that line, when the finding is about one. */
  column: number | null
}

export interface ClientScore {
  /** caniemail's client id, e.g. `gmail.desktop-webmail`. */
  client: string
  /** What people call it, e.g. "Gmail (webmail)". */
  name: string
  /** Features this email uses that the client supports, out of `used`. */
  supported: number
  used: number
  /** 0–100. */
  score: number
  unsupported: string[]
}

export interface CheckReport {
  htmlBytes: number
  findings: Finding[]
  /** Per-client support of the HTML and CSS features this email uses (bundled caniemail data). */
  clients: ClientScore[]
  counts: { error: number; warning: number; info: number }
}

export interface CheckInput {
  html: string
  text: string
  /** Marketing mail must carry an unsubscribe link; transactional mail need not. */
  marketing?: boolean
}
