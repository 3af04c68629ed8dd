import {
  templatePath,
  type LivePreview,
  type Soft,
  type SoftError,
  type TemplateDetail,
  type TemplateListItem,
} from './api.js'
import { sameVariables, type Parsed, type Variables } from './variables.js'

/**
 * The open template's render session, as plain state: which template and fixture case are open,
 * what the editor starts from, what was rendered last, and which answers still count. No DOM
 * and no requests: the view asks it what to load, hands it the answers, and shows what it says
 * (test/inbox/template-session.test.ts drives it through every case).
 *
 * A render is one `POST /previews` whose answer carries every tab's content. Each request gets
 * a ticket; an answer whose ticket is no longer the newest (the template, the case or the
 * variables changed meanwhile) is dropped.
 */

export type Outcome =
  | { ok: true; preview: LivePreview; variables: Variables; frame: string }
  | { ok: false; error: SoftError }

/** A request the session asked for; its answer counts only while it is the newest. */
export interface Ticket {
  readonly seq: number
  readonly slug: string
}

export type PreviewRequest =
  | { template: string; case?: string }
  | { template: string; variables: Variables }

/** What to load when a template opens or changes: its detail, and the fixture case's own render. */
export interface LoadPlan {
  ticket: Ticket
  /** GET /templates/:slug: not for a template the list already says does not parse. */
  detail: boolean
  /** The base render (a fixture case, or the template alone to learn why it fails); null: none. */
  preview: PreviewRequest | null
}

/** What the view does once a load is in. */
export interface LoadResult {
  /** New text for the editor (the case's variables), or null to leave it as it is. */
  editor: Variables | null
  /** Variables still to render (edits kept over a change on disk, or the skeleton), or null. */
  render: Variables | null
}

/** After a new list: whether the open template must load again (and why), and a saved case now picked. */
export interface ListResult {
  load: boolean
  /** It, or something it uses, changed on disk. */
  changed: boolean
  picked: string | null
}

export class TemplateSession {
  slug: string | null = null
  caseName: string | null = null
  detail: TemplateDetail | null = null
  outcome: Outcome | null = null
  /** The fixture case's own render: the editor starts from (and resets to) its variables. */
  private base: LivePreview | null = null
  /** What the editor starts from and resets to: the case's variables, else the skeleton. */
  baseVariables: Variables = {}
  private templates: TemplateListItem[] = []
  private listed = false
  private seq = 0
  /** Bumped per outcome: a fixture case's frame URL changes with it, so the frame reloads. */
  private version = 0
  /** The next load starts the editor over from the case (a new template or case). */
  private resetEditor = true
  /** Loaded at least once since it was opened. */
  private started = false
  /** A case just saved from the editor: picked once the list has it. */
  private savedCase: string | null = null
  /** Slugs changed on disk since the last list (`*`: anything, after a reconnection). */
  private readonly pending = new Set<string>()

  /** The open template as the list has it (undefined: not listed, or the list not in yet). */
  get summary(): TemplateListItem | undefined {
    return this.templates.find((t) => t.slug === this.slug)
  }

  get isListed(): boolean {
    return this.listed
  }

  /** Opens a template and case (from the URL). True when that is a change: everything starts over. */
  open(slug: string | null, caseName: string | null): boolean {
    if (slug === this.slug && caseName === this.caseName && this.started) return false
    this.slug = slug
    this.caseName = caseName
    this.detail = null
    this.outcome = null
    this.base = null
    this.resetEditor = true
    this.started = false
    this.savedCase = null
    this.seq += 1
    return true
  }

  /** Another fixture case picked: the editor starts over from it. */
  setCase(name: string): void {
    this.caseName = name
    this.resetEditor = true
  }

  /** A template (or something it uses) changed on disk; `*` for "anything". */
  changed(slug: string): void {
    this.pending.add(slug)
  }

  /** A new list of templates is in. */
  list(templates: TemplateListItem[]): ListResult {
    this.templates = templates
    this.listed = true
    const changed =
      this.started && this.slug !== null && (this.pending.has(this.slug) || this.pending.has('*'))
    this.pending.clear()
    let picked: string | null = null
    if (this.savedCase && this.summary?.fixtures.some((c) => c.name === this.savedCase)) {
      picked = this.savedCase
      this.caseName = picked
      this.savedCase = null
      this.resetEditor = true
    }
    return {
      load: changed || picked !== null || (this.slug !== null && !this.started),
      changed: changed && picked === null,
      picked,
    }
  }

  /** What to load for the open template; null when none is open or the list does not have it. */
  planLoad(): LoadPlan | null {
    const summary = this.summary
    if (!this.slug || !summary) return null
    this.started = true
    const ticket = this.ticket()
    // Known not to parse: no detail to ask for, and the render says where it fails.
    if (summary.error) return { ticket, detail: false, preview: { template: this.slug } }
    const usable = summary.fixtures.find((c) => !c.error)
    const caseName = this.caseName ?? usable?.name ?? null
    return {
      ticket,
      detail: true,
      preview: caseName ? { template: this.slug, case: caseName } : null,
    }
  }

  /**
   * The load is in: the case's variables become what the editor starts from. Edits survive a
   * change on disk (the template changed under them, or its fixture did); a new template or
   * case, or an editor still showing the case as it was, starts over from the case. Null when
   * the answer came too late.
   */
  loaded(
    ticket: Ticket,
    detail: TemplateDetail | null,
    base: Soft<LivePreview> | null,
    editor: Parsed,
  ): LoadResult | null {
    if (!this.current(ticket)) return null
    const before = this.baseVariables
    const rendered = this.outcome?.ok ? this.outcome.variables : null
    this.detail = detail
    this.base = base?.ok ? base : null
    this.baseVariables = this.base ? this.base.variables : (detail?.skeleton ?? {})
    const keep = !this.resetEditor && (!editor.ok || !sameVariables(editor.variables, before))
    this.resetEditor = false
    const reset = !keep && !(editor.ok && sameVariables(editor.variables, this.baseVariables))
    const result = { editor: reset ? this.baseVariables : null }
    if (!keep && base && !base.ok) {
      this.settle({ ok: false, error: base.error })
      return { ...result, render: null }
    }
    const variables = keep
      ? editor.ok
        ? editor.variables
        : (rendered ?? this.baseVariables)
      : this.baseVariables
    if (this.base && sameVariables(variables, this.base.variables)) {
      this.settle({ ok: true, preview: this.base, variables, frame: this.caseFrame() })
      return { ...result, render: null }
    }
    return { ...result, render: variables }
  }

  /** A render of these variables starts. */
  beginRender(): Ticket {
    return this.ticket()
  }

  /** Its answer (or the request's failure, as a soft error). False when it came too late. */
  rendered(ticket: Ticket, variables: Variables, answer: Soft<LivePreview>): boolean {
    if (!this.current(ticket)) return false
    this.settle(
      answer.ok
        ? { ok: true, preview: answer, variables, frame: answer.url }
        : { ok: false, error: answer.error },
    )
    return true
  }

  /**
   * The editor's variables changed (and parse). True when they need a render; the ones on screen
   * need none, and the case's own variables bring its kept render back.
   */
  edit(variables: Variables): boolean {
    const onScreen = this.outcome?.ok && sameVariables(variables, this.outcome.variables)
    const isCase = !onScreen && this.base && sameVariables(variables, this.base.variables)
    if (!onScreen && !isCase) return true
    // Typed away and back again: a render of the variables in between no longer counts.
    this.seq += 1
    if (isCase) this.settle({ ok: true, preview: this.base!, variables, frame: this.caseFrame() })
    return false
  }

  /** Whether the editor's text differs from what it started from. */
  edited(editor: Parsed): boolean {
    return !editor.ok || !sameVariables(editor.variables, this.baseVariables)
  }

  /** What "Reset" goes back to, in words. */
  get baseName(): string {
    return this.caseName ?? (this.summary?.fixtures.length ? 'the fixture' : 'the examples')
  }

  /** Whether the outcome on screen is the fixture case's own render. */
  get showsCase(): boolean {
    return !!(this.base && this.outcome?.ok && this.outcome.preview === this.base)
  }

  /** The fixture case chosen in the picker (the URL's, else the first usable one). */
  get selectedCase(): string {
    return this.caseName ?? this.summary?.fixtures.find((c) => !c.error)?.name ?? ''
  }

  /** A case was saved from the editor: pick it once the list has it. */
  caseSaved(name: string): void {
    this.savedCase = name
  }

  /** Whether that case is still awaited (no event brought it in time: the view lists again). */
  awaits(name: string): boolean {
    return this.savedCase === name
  }

  private ticket(): Ticket {
    return { seq: ++this.seq, slug: this.slug ?? '' }
  }

  private current(ticket: Ticket): boolean {
    return ticket.seq === this.seq && ticket.slug === this.slug
  }

  private settle(outcome: Outcome): void {
    this.outcome = outcome
    this.version += 1
  }

  /**
   * The case's stable preview URL: it never expires (a kept preview does, after 50 newer ones),
   * so a frame reloading for another view option still finds it. `v` is ignored by the server;
   * a new one makes the frame load again after a change on disk.
   */
  private caseFrame(): string {
    const params = new URLSearchParams()
    if (this.caseName) params.set('case', this.caseName)
    params.set('v', String(this.version + 1))
    return `${templatePath(this.slug ?? '')}/preview?${params}`
  }
}
