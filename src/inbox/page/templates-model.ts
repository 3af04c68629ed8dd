import { signal } from '@preact/signals'
import {
  api,
  softError,
  type LivePreview,
  type Soft,
  type TemplateChange,
  type TemplateListItem,
} from './api.js'
import {
  detailParams,
  readDetailRoute,
  sameDetail,
  tabParam,
  type DetailRoute,
  type TabSpec,
} from './detail-route.js'
import { plural } from './format.js'
import { ListNav } from './list-nav.js'
import type { Page } from './page.js'
import { DEFAULT_VIEW, setViewParams, viewParams, type ViewState } from './preview.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'
import { TemplateSession } from './template-session.js'
import { parseVariables, type Parsed, type Variables } from './variables.js'

export const TEMPLATE_TABS: readonly TabSpec[] = [
  { id: 'preview', label: 'Preview' },
  { id: 'text', label: 'Text' },
  // The rendered HTML; `source` in the URL, as the checks' "line 42" links have it.
  { id: 'source', label: 'HTML' },
  { id: 'liquid', label: 'Liquid' },
  { id: 'variables', label: 'Variables' },
  { id: 'checks', label: 'Checks' },
]
/** Tabs that show lines, and take `line` in the URL. */
export const LINE_TABS = ['source', 'liquid']

/** Typing settles this long before the variables are parsed and rendered. */
export const DEBOUNCE_MS = 250
/** How long after a save to look for the new case ourselves, when no event said it arrived. */
const SAVED_CASE_FALLBACK_MS = 1500
/** A save often comes as a burst of events (a partial used by several templates): one list. */
const CHANGE_BURST_MS = 120

/** Where "Hide list" is remembered. */
const LIST_KEY = 'sendbox.templates.list'

function readFlag(key: string): boolean {
  try {
    return localStorage.getItem(key) === 'hidden'
  } catch {
    return false
  }
}

export type SaveResult = { ok: true; file: string } | { ok: false; code: string; message: string }

export type RenderState = 'idle' | 'busy' | 'ok' | 'error'

/**
 * The Templates view's state and behaviour, without the DOM: the list, and the open template's
 * render session (TemplateSession: which case, which answers count) driven by the URL, the
 * variables editor and changes on disk. One `POST /previews` per render brings every tab's
 * content: preview, text, HTML, checks. templates.tsx draws it.
 */
export class TemplatesModel {
  readonly session = new TemplateSession()
  readonly templates = signal<TemplateListItem[]>([])
  /** Bumped when the session's state changed (list, detail, outcome): the view renders again. */
  readonly version = signal(0)
  readonly detail = signal<DetailRoute>({ tab: 'preview', view: DEFAULT_VIEW, line: null })
  /** What the editor shows when the page sets it (a case, a reset); `seq` tells a new setting from the same text. */
  readonly editorDoc = signal<{ text: string; seq: number }>({ text: '{}', seq: 0 })
  /** The editor's JSON does not parse: why. */
  readonly jsonError = signal<string | null>(null)
  readonly status = signal<{ text: string; state: RenderState }>({ text: '', state: 'idle' })
  /** The editor's text differs from the case it started from. */
  readonly edited = signal(false)
  /** The filter typed over the list. */
  readonly filter = signal('')
  /** "Hide list": on a wide screen the open template takes the whole width (remembered). */
  readonly listHidden = signal(readFlag(LIST_KEY))
  /** The list's keyboard: j/k, `/`, Esc (app.tsx sends the keys). */
  readonly keys = new ListNav('slug', {
    current: () => this.session.slug,
    open: (slug) => goHash(this.hrefFor(slug)),
    back: () => this.back(),
    clearSearch: () => {
      this.filter.value = ''
    },
    // `/` with the list folded away unfolds it first.
    reveal: () => this.setListHidden(false),
  })
  private text = '{}'
  private typingTimer = 0
  private reloadTimer = 0
  private savedCaseTimer = 0

  constructor(private readonly page: Page) {}

  // ---- routing -------------------------------------------------------------------------

  show(route: Route): void {
    if (!this.session.isListed) void this.reload()
    const detail = readDetailRoute(route.params, TEMPLATE_TABS, this.detail.peek(), LINE_TABS)
    if (!sameDetail(detail, this.detail.peek())) this.detail.value = detail
    if (route.name) replaceParams(detailParams(TEMPLATE_TABS, detail))
    if (this.session.open(route.name, route.params.get('case'))) {
      this.changed()
      window.clearTimeout(this.savedCaseTimer)
      if (this.session.isListed) void this.load(false)
    }
  }

  hrefFor(slug: string | null): string {
    const params = new URLSearchParams()
    const { tab, view } = this.detail.peek()
    if (slug && tab !== 'preview') params.set('tab', tab)
    if (slug) setViewParams(params, view)
    return formatHash({ view: 'templates', name: slug, params })
  }

  /**
   * A tab picked (a click, the arrows): the detail changes first, then the URL, whose route
   * leaves the default tab out (and a route that leaves it out keeps the tab it had).
   */
  setTab(tab: string): void {
    this.detail.value = { ...this.detail.peek(), tab, line: null }
    replaceParams({ tab: tabParam(TEMPLATE_TABS, tab), line: null })
  }

  /** The preview options changed: the detail first, then the URL (which leaves defaults out). */
  setView(view: ViewState): void {
    this.detail.value = { ...this.detail.peek(), view }
    replaceParams(viewParams(view))
  }

  setListHidden(hidden: boolean): void {
    this.listHidden.value = hidden
    try {
      localStorage.setItem(LIST_KEY, hidden ? 'hidden' : 'shown')
    } catch {
      // Storage off: not remembered, still applied.
    }
  }

  /** Escape: from a template back to the list. */
  back(): boolean {
    const slug = this.session.slug
    if (!slug) return false
    this.keys.leaving(slug)
    goHash(this.hrefFor(null))
    return true
  }

  // ---- the list ------------------------------------------------------------------------

  async reload(): Promise<void> {
    let templates: TemplateListItem[]
    try {
      ;({ templates } = await api.templates())
    } catch (error) {
      this.page.toast(`Could not load the templates: ${(error as Error).message}`)
      return
    }
    this.templates.value = templates
    const { load, picked, changed } = this.session.list(templates)
    this.changed()
    if (picked) {
      // A case saved from the editor is in the catalog now: show it, picked.
      window.clearTimeout(this.savedCaseTimer)
      replaceParams({ case: picked })
    }
    if (load) await this.load(changed)
  }

  onTemplateChange(change: TemplateChange): void {
    this.session.changed(change.slug)
    window.clearTimeout(this.reloadTimer)
    this.reloadTimer = window.setTimeout(() => void this.reload(), CHANGE_BURST_MS)
  }

  /** After a reconnection: whatever changed meanwhile. */
  resync(): void {
    this.session.changed('*')
    void this.reload()
  }

  // ---- the open template ---------------------------------------------------------------

  /**
   * Loads the open template (opened, another case, a change on disk): its detail and its fixture
   * case's render, in parallel; then renders the editor's variables if they are not the case's.
   */
  private async load(changedOnDisk: boolean): Promise<void> {
    const plan = this.session.planLoad()
    const slug = this.session.slug
    if (!plan || !slug) return this.changed()
    const [detail, base] = await Promise.all([
      plan.detail ? api.template(slug).catch(() => null) : null,
      plan.preview ? preview(plan.preview) : null,
    ])
    const next = this.session.loaded(plan.ticket, detail, base, this.read())
    if (!next) return
    if (next.editor) this.setEditor(next.editor)
    this.updateEdited()
    if (next.render) await this.render(next.render)
    else this.settled()
    if (changedOnDisk)
      this.page.announce(
        this.session.outcome?.ok ? `The preview of ${slug} was updated` : `${slug} has an error`,
      )
  }

  /** One POST /previews for these variables; an answer overtaken by a newer request is dropped. */
  private async render(variables: Variables): Promise<void> {
    const slug = this.session.slug
    if (!slug) return
    const ticket = this.session.beginRender()
    this.status.value = { text: 'Rendering…', state: 'busy' }
    const answer = await preview({ template: slug, variables })
    if (this.session.rendered(ticket, variables, answer)) this.settled()
  }

  /** The editor's text changed: parsed and rendered once typing pauses. */
  typed(text: string): void {
    this.text = text
    window.clearTimeout(this.typingTimer)
    this.typingTimer = window.setTimeout(() => {
      const parsed = this.read()
      if (!parsed.ok) {
        this.jsonError.value = parsed.message
        this.status.value = {
          text: 'The JSON has an error: the preview shows the last good render.',
          state: 'error',
        }
        this.updateEdited()
        return
      }
      this.jsonError.value = null
      this.onVariables(parsed.variables)
    }, DEBOUNCE_MS)
  }

  private onVariables(variables: Variables): void {
    this.updateEdited()
    if (this.session.edit(variables)) void this.render(variables)
    else this.settled()
  }

  /** "Reset": back to the case (or the examples). */
  resetVariables(): void {
    this.setEditor(this.session.baseVariables)
    this.onVariables(this.session.baseVariables)
  }

  setCase(name: string): void {
    this.session.setCase(name)
    replaceParams({ case: name })
    void this.load(false)
  }

  /** The names of the open template's cases, to say "already exists" before asking the server. */
  get cases(): string[] {
    return this.session.summary?.fixtures.map((c) => c.name) ?? []
  }

  read(): Parsed {
    return parseVariables(this.text)
  }

  async saveCase(name: string, variables: Variables, overwrite: boolean): Promise<SaveResult> {
    const slug = this.session.slug
    if (!slug) return { ok: false, code: 'gone', message: 'No template is open.' }
    try {
      const saved = await api.saveFixture(slug, name, variables, overwrite)
      this.page.announce(`Saved as the fixture case ${name}`)
      // The catalog picks the file up and an event says so; then the case is picked.
      this.session.caseSaved(name)
      window.clearTimeout(this.savedCaseTimer)
      this.savedCaseTimer = window.setTimeout(() => {
        if (!this.session.awaits(name)) return
        this.session.changed(slug)
        void this.reload()
      }, SAVED_CASE_FALLBACK_MS)
      return { ok: true, file: saved.file }
    } catch (error) {
      const e = softError(error)
      return { ok: false, code: e.code, message: e.message }
    }
  }

  // ---- what shows ----------------------------------------------------------------------

  private setEditor(variables: Variables): void {
    window.clearTimeout(this.typingTimer)
    this.text = JSON.stringify(variables, null, 2)
    this.editorDoc.value = { text: this.text, seq: this.editorDoc.peek().seq + 1 }
    this.jsonError.value = null
  }

  private updateEdited(): void {
    this.edited.value = this.session.edited(this.read())
  }

  /** A render (or its failure) is on screen: the status line says which. */
  private settled(): void {
    const { outcome } = this.session
    if (outcome?.ok) {
      const missing = outcome.preview.missing
      this.status.value = {
        text: this.session.showsCase
          ? 'Showing the fixture case.'
          : missing.length
            ? `Preview updated; ${plural(missing.length, 'variable')} missing.`
            : 'Preview updated.',
        state: 'ok',
      }
    } else if (outcome)
      this.status.value = {
        text:
          this.session.showsCase || outcome.error.code.startsWith('fixture')
            ? 'This case does not render: the error is in the preview.'
            : 'The template fails to render with these variables: the error is in the preview.',
        state: 'error',
      }
    this.changed()
  }

  private changed(): void {
    this.version.value++
  }
}

/** A soft preview; a failed request reads as one (the page shows both the same way). */
const preview = (body: Parameters<typeof api.preview>[0]): Promise<Soft<LivePreview>> =>
  api.preview(body).catch((error: unknown) => ({ ok: false as const, error: softError(error) }))
