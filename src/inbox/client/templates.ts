import { api, ApiError, templatePath, type CheckReport, type RenderPreview, type SoftRender, type SourceProblem, type TemplateChange, type TemplateDetail, type TemplateSummary } from './api.js'
import { checksTab, showChecksBadge } from './checks.js'
import { jsonBlock, revealLine, sandboxedFrame, showSource, tabList, warningItems } from './components.js'
import { sameVariables, VariablesEditor, type SaveResult, type Variables } from './editor.js'
import { announce, h, replace, toast } from './dom.js'
import { fullTime, plural, timeAgo } from './format.js'
import { DEFAULT_VIEW, onSystemSchemeChange, PreviewControls, setViewParams, TEMPLATE_WIDTHS, viewParams, type ViewState } from './preview.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'
import { detailParams, focusedItem, focusItem, focusSearch, markCurrent, moveInList, pickTab, readDetailRoute, refocusItem, restoreListFocus, sourceLineParams, syncFrame, tabParam, updateFrame, type ListFocus } from './split.js'

const TABS = [
  { id: 'preview', label: 'Preview' },
  { id: 'text', label: 'Text' },
  { id: 'source', label: 'Source' },
  { id: 'variables', label: 'Variables' },
  { id: 'checks', label: 'Checks' },
]

type Outcome = { ok: true; preview: RenderPreview } | { ok: false; error: ApiError }

/** A soft render's problem as the error the panel shows. */
const softError = (render: Extract<SoftRender, { ok: false }>): ApiError => new ApiError(422, render.error.code, render.error.message, render.error.details)
const asApiError = (error: unknown): ApiError => (error instanceof ApiError ? error : new ApiError(0, 'network_error', String(error)))
const previewOf = ({ html, text, warnings, missing, variables }: RenderPreview): RenderPreview => ({ html, text, warnings, missing, variables })

/** How long after a save to look for the new case ourselves, when no event said it arrived. */
const SAVED_CASE_FALLBACK_MS = 1500
/** The checks run a little after a render settles: they are slower than a render. */
const CHECKS_DELAY_MS = 300

/**
 * Every template with its description and variables; an open one renders in the sandboxed
 * frame with variables you can edit live (starting from a fixture case, or the front-matter
 * examples), re-renders by itself when anything it depends on changes on disk, and shows its
 * text, source, variables and email checks.
 */
export class TemplatesView {
  readonly root: HTMLElement
  readonly list: HTMLUListElement
  readonly search: HTMLInputElement
  private readonly detail: HTMLElement
  private readonly count: HTMLElement
  private readonly empty: HTMLElement

  private templates: TemplateSummary[] = []
  private loaded = false
  private slug: string | null = null
  private caseName: string | null = null
  private tab = 'preview'
  private view: ViewState = DEFAULT_VIEW
  private line: number | null = null
  private version = 0
  private outcome: Outcome | null = null
  private info: TemplateDetail | null = null
  private reloadTimer = 0
  private renderSeq = 0
  private frame: HTMLIFrameElement | null = null
  private body: HTMLElement | null = null
  private head: HTMLElement | null = null
  private headKey = ''
  private tabs: HTMLElement | null = null
  private controls: PreviewControls | null = null
  private notes: HTMLElement | null = null
  private panel: HTMLElement | null = null
  private editor: VariablesEditor | null = null
  private pending: Set<string> = new Set()
  private readonly afterRoute: ListFocus = { search: false, item: null }

  /** The fixture case's own render (the frame then loads the stable /preview?case= URL). */
  private base: RenderPreview | null = null
  /** What the editor starts from and resets to: the case, else the skeleton (examples first). */
  private baseVariables: Variables = {}
  /** The variables the current outcome was rendered with. */
  private rendered: Variables | null = null
  /** The frame's document before the view options: /preview?case=… or /previews/<id>. */
  private frameBase: string | null = null
  /** The next refresh starts the editor over from the case (a new template or case). */
  private resetEditor = true
  /** A case just saved: selected once the catalog lists it. */
  private savedCase: string | null = null
  private savedCaseTimer = 0
  private checks: CheckReport | null = null
  private checksError: string | null = null
  private checksSeq = 0
  private checksTimer = 0

  constructor() {
    this.search = h('input', {
      id: 'template-search',
      type: 'search',
      class: 'search-input',
      placeholder: 'Filter templates',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-keyshortcuts': '/',
      oninput: () => this.renderList(),
    })
    this.count = h('span', { class: 'count', id: 'template-count' })
    this.list = h('ul', { class: 'items', id: 'template-list', 'aria-labelledby': 'templates-title' })
    this.empty = h('div', { class: 'empty', hidden: true })
    this.detail = h('section', { class: 'pane detail-pane', id: 'template-pane', 'aria-label': 'Template preview' })
    const listPane = h(
      'section',
      { class: 'pane list-pane', 'aria-labelledby': 'templates-title' },
      h(
        'div',
        { class: 'pane-head' },
        h('div', { class: 'title-row' }, h('h2', { id: 'templates-title' }, 'Templates'), this.count),
        h('div', { class: 'search', role: 'search' }, h('label', { for: 'template-search', class: 'visually-hidden' }, 'Filter templates'), this.search, h('kbd', { class: 'search-key', 'aria-hidden': 'true' }, '/')),
      ),
      this.list,
      this.empty,
    )
    this.root = h('div', { class: 'split', id: 'view-templates', 'data-open': 'false', hidden: true }, listPane, this.detail)
    onSystemSchemeChange(() => this.syncDetail())
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Extract<Route, { view: 'templates' }>): void {
    if (!this.loaded) void this.reload()
    const detail = readDetailRoute(route.params, TABS, this.tab, this.view)
    ;({ tab: this.tab, view: this.view, line: this.line } = detail)
    const caseName = route.params.get('case')
    if (route.slug) replaceParams(detailParams(TABS, detail))
    this.root.dataset.open = String(!!route.slug)
    const changed = route.slug !== this.slug || caseName !== this.caseName
    this.slug = route.slug
    this.caseName = caseName
    if (changed || !this.body) this.openTemplate()
    else this.syncDetail()
    this.markCurrent()
    if (!route.slug) restoreListFocus(this.afterRoute, this.search, this.list, this.detail, 'slug')
  }

  private hrefFor(slug: string | null): string {
    const params = new URLSearchParams()
    if (slug && this.tab !== 'preview') params.set('tab', this.tab)
    if (slug) setViewParams(params, this.view)
    return formatHash({ view: 'templates', slug, params })
  }

  // ---- the list ------------------------------------------------------------------------

  async reload(): Promise<void> {
    try {
      const { templates } = await api.templates()
      this.templates = templates
      this.loaded = true
      this.renderList()
      let affected = this.slug !== null && (this.pending.has(this.slug) || this.pending.has('*'))
      this.pending.clear()
      // A case saved from the editor is in the catalog now: show it, picked.
      if (this.savedCase && this.summary()?.fixtures.some((c) => c.name === this.savedCase)) {
        this.caseName = this.savedCase
        this.savedCase = null
        window.clearTimeout(this.savedCaseTimer)
        replaceParams({ case: this.caseName })
        affected = true
      }
      if (affected || (this.slug && !this.body)) await this.refresh(affected)
    } catch (error) {
      toast(`Could not load the templates: ${(error as Error).message}`)
    }
  }

  onTemplateChange(change: TemplateChange): void {
    this.pending.add(change.slug)
    window.clearTimeout(this.reloadTimer)
    // A save often comes as a burst of events (a partial used by several templates): one reload.
    this.reloadTimer = window.setTimeout(() => void this.reload(), 120)
  }

  resync(): void {
    this.pending.add('*')
    void this.reload()
  }

  private renderList(): void {
    const focusedSlug = focusedItem(this.list, 'slug')
    const needle = this.search.value.trim().toLowerCase()
    const shown = this.templates.filter((t) => !needle || t.slug.toLowerCase().includes(needle) || (t.description ?? '').toLowerCase().includes(needle))
    this.count.textContent = this.loaded ? String(this.templates.length) : ''
    this.count.setAttribute('aria-label', plural(this.templates.length, 'template'))
    replace(
      this.list,
      shown.map((t) =>
        h(
          'li',
          null,
          h(
            'a',
            { class: 'item', href: this.hrefFor(t.slug), 'data-slug': t.slug },
            h('span', { class: 'item-top' }, h('span', { class: 'item-subject item-slug' }, t.slug), t.error ? h('span', { class: 'badge badge-error' }, 'Does not parse') : h('span', { class: 'item-time' }, t.fixtures.length ? plural(t.fixtures.length, 'fixture') : 'no fixture')),
            t.description ? h('span', { class: 'item-desc' }, t.description) : h('span', { class: 'item-desc muted' }, 'No description'),
            t.variables.length ? h('span', { class: 'item-vars' }, h('span', { class: 'visually-hidden' }, 'Variables: '), t.variables.map((v) => h('code', { class: 'chip' }, v))) : null,
          ),
        ),
      ),
    )
    this.empty.hidden = !this.loaded || shown.length > 0
    if (!this.empty.hidden) {
      replace(
        this.empty,
        this.templates.length
          ? h('p', { class: 'empty-title' }, 'No template matches')
          : [h('p', { class: 'empty-title' }, 'No templates yet'), h('p', null, 'Add a file such as ', h('code', null, 'welcome.liquid'), ' to the templates folder; it shows up here at once.')],
      )
    }
    this.markCurrent()
    refocusItem(this.list, 'slug', focusedSlug)
  }

  private markCurrent(): void {
    markCurrent(this.list, 'slug', this.slug)
  }

  // ---- keyboard ------------------------------------------------------------------------

  focusItem(index: number): void {
    focusItem(this.list, 'slug', index)
  }

  move(delta: number): void {
    moveInList(this.list, 'slug', this.slug, delta, (slug) => goHash(this.hrefFor(slug)))
  }

  back(): boolean {
    if (!this.slug) return false
    this.afterRoute.item = this.slug
    goHash(this.hrefFor(null))
    return true
  }

  /** `/`: the search box, coming back to the list first when it is not on screen. */
  focusSearch(): void {
    focusSearch(this.search, this.afterRoute, () => this.back())
  }

  escapeSearch(): void {
    if (this.search.value) {
      this.search.value = ''
      this.renderList()
    } else this.focusItem(0)
  }

  // ---- the open template ---------------------------------------------------------------

  private summary(): TemplateSummary | undefined {
    return this.templates.find((t) => t.slug === this.slug)
  }

  private openTemplate(): void {
    this.outcome = null
    this.info = null
    this.frame = null
    this.body = null
    this.panel = null
    this.editor = null
    this.base = null
    this.rendered = null
    this.frameBase = null
    this.resetEditor = true
    this.savedCase = null
    this.checks = null
    this.checksError = null
    this.checksSeq += 1
    window.clearTimeout(this.checksTimer)
    if (!this.slug) {
      replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'Select a template to preview it with its fixtures.'), h('p', { class: 'hint' }, 'Edit its variables live; the preview also re-renders by itself when the template, a partial, a layout or a fixture changes on disk.')))
      if (document.title !== 'sendbox') document.title = 'Templates · sendbox'
      return
    }
    document.title = `${this.slug} · Templates · sendbox`
    if (!this.loaded) {
      replace(this.detail, h('p', { class: 'placeholder' }, 'Loading…'))
      return
    }
    void this.refresh(false)
  }

  /**
   * Renders the open template again (opened, another case, a change on disk): the case's
   * variables go into the editor, unless someone edited them, then their edits are rendered.
   */
  private async refresh(changedOnDisk: boolean): Promise<void> {
    const slug = this.slug
    if (!slug) return
    const seq = ++this.renderSeq
    const summary = this.summary()
    if (!summary) {
      this.body = null
      this.frame = null
      this.editor = null
      replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'There is no template ', h('code', null, slug), ' (any more).'), h('p', null, h('a', { href: this.hrefFor(null) }, 'All templates'))))
      return
    }
    if (summary.error) {
      // Known not to parse from the list itself: no need to ask for a render that must fail.
      const { file = `${slug}`, line, column, message = 'The template does not parse.' } = summary.error
      this.showDetail(summary)
      this.base = null
      this.setOutcome({ ok: false, error: new ApiError(422, 'template_invalid', message, [{ file, line, column, message }]) }, null, null)
      if (changedOnDisk) announce(`${slug} has an error`)
      return
    }
    const [render, info] = await Promise.all([api.render(slug, this.caseName).catch((error: unknown) => asApiError(error)), api.template(slug).catch(() => null)])
    if (seq !== this.renderSeq || slug !== this.slug) return
    this.info = info
    const base = render instanceof ApiError || !render.ok ? null : previewOf(render)
    const before = this.baseVariables
    this.base = base
    this.baseVariables = summary.fixtures.length && base ? base.variables : (info?.skeleton ?? base?.variables ?? {})
    this.showDetail(summary)
    const editor = this.editor!
    editor.setCases(summary.fixtures.map((c) => c.name))
    const current = editor.read()
    // Edits survive a change on disk (the template changed under them, or its fixture did); a
    // new template or case, or an editor showing the case as it was, starts over from the case.
    const keep = !this.resetEditor && (!current.ok || !sameVariables(current.variables, before))
    this.resetEditor = false
    if (!keep && !(current.ok && sameVariables(current.variables, this.baseVariables))) editor.setValue(this.baseVariables)
    this.updateEdited()
    if (!keep && !base) {
      this.setOutcome({ ok: false, error: render instanceof ApiError ? render : softError(render as Extract<SoftRender, { ok: false }>) }, null, null)
      editor.setStatus('This case does not render: the error is in the preview.', 'error')
      if (changedOnDisk) announce(`${slug} has an error`)
      return
    }
    const variables = keep ? (current.ok ? current.variables : (this.rendered ?? this.baseVariables)) : this.baseVariables
    await this.renderWith(variables)
    if (changedOnDisk && seq + 1 === this.renderSeq) announce(this.outcome?.ok ? `The preview of ${slug} was updated` : `${slug} has an error`)
  }

  /**
   * Renders with these variables: the case's own render when they are the case's (the frame
   * loads /preview?case=…), else a soft render (errors show inline, never as a failed request)
   * and a live preview by id for the frame.
   */
  private async renderWith(variables: Variables): Promise<void> {
    const slug = this.slug
    if (!slug) return
    const seq = ++this.renderSeq
    this.editor?.setStatus('Rendering…', 'busy')
    let outcome: Outcome
    let src: string | null = null
    if (this.base && sameVariables(variables, this.base.variables)) {
      outcome = { ok: true, preview: this.base }
      const params = new URLSearchParams()
      if (this.caseName) params.set('case', this.caseName)
      // A new query string makes the frame load again; the server ignores `v`.
      params.set('v', String(this.version + 1))
      src = `${templatePath(slug)}/preview?${params}`
    } else {
      const render = await api.renderWith(slug, variables).catch((error: unknown) => asApiError(error))
      if (seq !== this.renderSeq || slug !== this.slug) return
      if (render instanceof ApiError) outcome = { ok: false, error: render }
      else if (!render.ok) outcome = { ok: false, error: softError(render) }
      else {
        try {
          const live = await api.preview(slug, variables)
          src = live.url
          outcome = { ok: true, preview: previewOf({ ...render, warnings: live.warnings, missing: live.missing }) }
        } catch (error) {
          outcome = { ok: false, error: asApiError(error) }
        }
        if (seq !== this.renderSeq || slug !== this.slug) return
      }
    }
    this.setOutcome(outcome, variables, src)
    if (outcome.ok) this.editor?.setStatus(outcome.preview.missing.length ? `Preview updated; ${plural(outcome.preview.missing.length, 'variable')} missing.` : 'Preview updated.', 'ok')
    else this.editor?.setStatus('The template fails to render with these variables: the error is in the preview.', 'error')
  }

  private setOutcome(outcome: Outcome, variables: Variables | null, src: string | null): void {
    this.outcome = outcome
    this.rendered = variables
    this.frameBase = src
    this.version += 1
    this.renderBody()
    this.scheduleChecks()
  }

  /** The editor's text changed (and parses). */
  private onVariables(variables: Variables): void {
    this.updateEdited()
    if (this.rendered && sameVariables(variables, this.rendered) && this.outcome?.ok) {
      this.editor?.setStatus('Preview up to date.', 'ok')
      return
    }
    void this.renderWith(variables)
  }

  private updateEdited(): void {
    const editor = this.editor
    if (!editor) return
    const current = editor.read()
    editor.setEdited(!current.ok || !sameVariables(current.variables, this.baseVariables), this.caseName ?? (this.summary()?.fixtures.length ? 'the fixture' : 'the examples'))
  }

  private resetVariables(): void {
    this.editor?.setValue(this.baseVariables)
    this.updateEdited()
    void this.renderWith(this.baseVariables)
    this.editor?.textarea.focus()
  }

  private async saveCase(name: string, variables: Variables, overwrite: boolean): Promise<SaveResult> {
    const slug = this.slug
    if (!slug) return { ok: false, code: 'gone', message: 'No template is open.' }
    try {
      const saved = await api.saveFixture(slug, name, variables, overwrite)
      announce(`Saved as the fixture case ${name}`)
      // The catalog picks the file up and an event says so; then the case is picked.
      this.savedCase = name
      window.clearTimeout(this.savedCaseTimer)
      this.savedCaseTimer = window.setTimeout(() => {
        if (this.savedCase === name) {
          this.pending.add(slug)
          void this.reload()
        }
      }, SAVED_CASE_FALLBACK_MS)
      return { ok: true, file: saved.file }
    } catch (error) {
      const e = asApiError(error)
      return { ok: false, code: e.code, message: e.message }
    }
  }

  // ---- checks --------------------------------------------------------------------------

  private scheduleChecks(): void {
    window.clearTimeout(this.checksTimer)
    const seq = ++this.checksSeq
    const slug = this.slug
    const variables = this.rendered
    if (!slug || !variables || !this.outcome?.ok) {
      this.checks = null
      this.checksError = null
      showChecksBadge(this.tabs, null)
      return
    }
    this.checksTimer = window.setTimeout(async () => {
      let report: CheckReport | null = null
      let failure: string | null = null
      try {
        report = await api.templateChecks(slug, variables)
      } catch (error) {
        failure = (error as Error).message
      }
      if (seq !== this.checksSeq || slug !== this.slug) return
      this.checks = report
      this.checksError = failure
      showChecksBadge(this.tabs, report)
      if (this.tab === 'checks') this.renderBody()
    }, CHECKS_DELAY_MS)
  }

  /** "line 42" in the checks: the Source tab at that line, as a link (a history entry of its own). */
  private lineHref(line: number): string {
    return formatHash({ view: 'templates', slug: this.slug, params: sourceLineParams(line) })
  }

  // ---- rendering -----------------------------------------------------------------------

  /** The head and the body's frame, built once per template; the head again when the summary changed. */
  private showDetail(summary: TemplateSummary): void {
    if (!this.body) this.renderDetail(summary)
    else if (JSON.stringify(summary) !== this.headKey) this.renderHead(summary)
  }

  private renderDetail(summary: TemplateSummary): void {
    this.tabs = tabList('template', 'Template views', TABS, this.tab, (tab) => this.setTab(tab))
    this.controls = new PreviewControls('template', TEMPLATE_WIDTHS, this.view, (view) => this.setView(view))
    this.editor = new VariablesEditor({
      onVariables: (variables) => this.onVariables(variables),
      onReset: () => this.resetVariables(),
      onSave: (name, variables, overwrite) => this.saveCase(name, variables, overwrite),
    })
    this.head = h('header', { class: 'message-head' })
    this.notes = h('div', { class: 'notes' })
    this.panel = h('div', { class: 'panel', id: 'template-panel', role: 'tabpanel', 'aria-labelledby': `template-tab-${this.tab}` })
    this.body = h('div', { class: 'template-body' }, this.editor.root, h('div', { class: 'template-main' }, this.notes, this.controls.root, this.panel))
    replace(this.detail, h('article', { class: 'message', 'aria-labelledby': 'template-title' }, this.head, this.body))
    this.renderHead(summary)
  }

  private renderHead(t: TemplateSummary): void {
    if (!this.head) return
    this.headKey = JSON.stringify(t)
    const cases = t.fixtures
    const selected = this.caseName ?? cases.find((c) => !c.error)?.name ?? ''
    const caseControl = cases.length
      ? h(
          'div',
          { class: 'field' },
          h('label', { for: 'case-select' }, 'Fixture'),
          h(
            'select',
            { id: 'case-select', onchange: (event: Event) => this.setCase((event.target as HTMLSelectElement).value) },
            cases.map((c) => h('option', { value: c.name, selected: c.name === selected }, c.error ? `${c.name} (invalid)` : c.name)),
          ),
        )
      : h('p', { class: 'field-static' }, 'No fixture case yet')
    replace(
      this.head,
      h('a', { class: 'back', href: this.hrefFor(null) }, h('span', { 'aria-hidden': 'true' }, '← '), 'Templates'),
      h('h2', { id: 'template-title', tabindex: '-1' }, t.slug),
      t.description ? h('p', { class: 'lede' }, t.description) : null,
      h(
        'dl',
        { class: 'meta' },
        h('div', null, h('dt', null, 'Expects'), h('dd', { class: 'chips' }, t.variables.length ? t.variables.map((v) => h('code', { class: 'chip' }, v)) : 'no variables')),
        h('div', null, h('dt', null, 'Updated'), h('dd', null, h('time', { datetime: t.updatedAt, title: fullTime(t.updatedAt), 'data-relative': '' }, timeAgo(t.updatedAt)))),
      ),
      h('div', { class: 'toolbar' }, this.tabs, h('div', { class: 'toolbar-end' }, caseControl)),
    )
  }

  private syncDetail(): void {
    if (!this.tabs) return
    syncFrame(this.tabs, this.tab, this.controls, this.frame, this.view, this.frameBase)
    if (this.body?.dataset.tab !== this.tab) this.renderBody()
    else if (this.tab === 'source') revealLine(this.panel?.querySelector('pre') ?? null, this.line)
  }

  private setTab(tab: string): void {
    this.tab = pickTab(TABS, tab)
    this.line = null
    replaceParams({ tab: tabParam(TABS, this.tab), line: null })
    this.syncDetail()
    this.renderList()
  }

  private setView(view: ViewState): void {
    this.view = view
    replaceParams(viewParams(view))
    this.syncDetail()
    this.renderList()
  }

  private setCase(name: string): void {
    this.caseName = name
    this.resetEditor = true
    replaceParams({ case: name })
    void this.refresh(false)
  }

  private renderBody(): void {
    const body = this.body
    const panel = this.panel
    const outcome = this.outcome
    if (!body || !panel || !outcome || !this.slug) return
    body.dataset.tab = this.tab
    // Nothing to edit in a template that does not parse.
    this.editor?.root.toggleAttribute('hidden', !outcome.ok && outcome.error.code === 'template_invalid')
    this.editor?.setMissing(outcome.ok ? outcome.preview.missing : [])
    this.controls?.root.toggleAttribute('hidden', this.tab !== 'preview' || !outcome.ok)
    panel.setAttribute('aria-labelledby', `template-tab-${this.tab}`)
    if (!outcome.ok) {
      this.frame = null
      replace(this.notes!)
      replace(panel, errorPanel(outcome.error))
      return
    }
    const { preview } = outcome
    replace(this.notes!, preview.warnings.length ? h('div', { class: 'note', role: 'note' }, h('ul', { class: 'plain' }, warningItems(preview.warnings))) : null)
    if (this.tab === 'preview') {
      if (!this.frameBase) return
      if (this.frame?.isConnected && panel.contains(this.frame)) {
        // Same frame, new document: no flash of an empty pane while it reloads.
        updateFrame(this.frame, this.view, this.frameBase)
        return
      }
      const { canvas, frame } = sandboxedFrame(this.frameBase, `Preview of the template ${this.slug}`, this.view)
      this.frame = frame
      replace(panel, canvas)
      return
    }
    this.frame = null
    switch (this.tab) {
      case 'text':
        replace(panel, h('pre', { class: 'text-body', id: 'template-text', tabindex: '0' }, preview.text))
        return
      case 'source':
        showSource(panel, preview.html, this.line, 'The rendered HTML source')
        return
      case 'checks':
        replace(panel, checksTab('template', this.checks, this.checksError, (line) => this.lineHref(line)))
        return
    }
    const declared = this.info?.declared ?? {}
    const required = new Set(this.info?.required ?? [])
    const names = this.info?.variables ?? this.summary()?.variables ?? []
    replace(
      panel,
      h('div', { class: 'details' }, [
        h('h3', null, 'Expected variables'),
        names.length
          ? h(
              'table',
              { class: 'vars' },
              h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Required'), h('th', { scope: 'col' }, 'Description'))),
              h(
                'tbody',
                null,
                names.map((name) => {
                  const needed = [...required].filter((p) => p === name || p.startsWith(`${name}.`))
                  return h('tr', null, h('td', null, h('code', null, name)), h('td', null, needed.length ? needed.join(', ') : 'optional'), h('td', null, declared[name]?.description ?? ''))
                }),
              ),
            )
          : h('p', null, 'This template reads no variables.'),
        h('h3', null, this.caseName && this.base && sameVariables(preview.variables, this.base.variables) ? `Values in this render (fixture ${this.caseName})` : 'Values in this render'),
        jsonBlock(preview.variables),
      ]),
    )
  }
}

const TITLES: Record<string, string> = {
  template_invalid: 'This template does not parse',
  render_failed: 'This template fails to render',
  fixture_invalid: 'This fixture is not usable',
  fixture_not_found: 'There is no such fixture case',
  template_not_found: 'There is no such template',
}

/** The render error, with where it is: file, line and column. */
function errorPanel(error: ApiError): HTMLElement {
  const places = (error.details as SourceProblem[]).filter((d) => d && typeof d === 'object' && (d.line !== undefined || d.file !== undefined))
  return h(
    'div',
    { class: 'error-panel', id: 'render-error', role: 'alert' },
    h('h3', null, TITLES[error.code] ?? 'The preview failed'),
    // The places repeat the message with where it is; without them, the message says it all.
    places.length ? null : h('p', { class: 'error-message' }, error.message),
    places.length
      ? h(
          'ul',
          { class: 'plain error-places' },
          places.map((d) =>
            h(
              'li',
              null,
              h('code', { class: 'error-location' }, [d.file ?? '', d.line !== undefined ? `:${d.line}` : '', d.column !== undefined ? `:${d.column}` : ''].join('')),
              d.line !== undefined ? h('span', { class: 'error-linecol' }, ` line ${d.line}${d.column !== undefined ? `, column ${d.column}` : ''}`) : null,
              h('p', { class: 'error-message' }, d.message || error.message),
            ),
          ),
        )
      : null,
    h('p', { class: 'hint' }, 'Fix the file and save: this panel updates by itself. ', h('code', null, 'npx sendbox check'), ' lists every problem.'),
  )
}
