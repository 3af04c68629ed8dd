import {
  api,
  softError,
  type LivePreview,
  type Soft,
  type SourceProblem,
  type TemplateChange,
  type TemplateListItem,
} from './api.js'
import { checksTab } from './checks.js'
import { DetailTabs } from './detail-tabs.js'
import { VariablesEditor, type SaveResult } from './editor.js'
import { errorCard } from './error-card.js'
import { announce, h, replace, toast } from './dom.js'
import { plural } from './format.js'
import { ListPane } from './list-pane.js'
import { ListToggle } from './list-toggle.js'
import {
  DEFAULT_VIEW,
  setViewParams,
  TEMPLATE_WIDTHS,
  viewParams,
  type ViewState,
} from './preview.js'
import { resizer } from './resizer.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'
import { detailParams, readDetailRoute, sourceLineParams, tabParam } from './split.js'
import { templateHead } from './template-head.js'
import { hasDarkRules, showTemplateNotes } from './template-notes.js'
import { TemplateSession } from './template-session.js'
import type { Variables } from './variables.js'
import { variablesTable } from './variables-table.js'

const TABS = [
  { id: 'preview', label: 'Preview' },
  { id: 'text', label: 'Text' },
  // The rendered HTML; `source` in the URL, as the checks' "line 42" links have it.
  { id: 'source', label: 'HTML' },
  { id: 'liquid', label: 'Liquid' },
  { id: 'variables', label: 'Variables' },
  { id: 'checks', label: 'Checks' },
]
/** Tabs that show lines, and take `line` in the URL. */
const LINE_TABS = ['source', 'liquid']
/** Tabs that show the render, or why there is none. */
const RENDER_TABS = new Set(['preview', 'text', 'source', 'checks'])

/** How long after a save to look for the new case ourselves, when no event said it arrived. */
const SAVED_CASE_FALLBACK_MS = 1500
/** A save often comes as a burst of events (a partial used by several templates): one list. */
const CHANGE_BURST_MS = 120

/**
 * The templates: the list (ListPane), and the open template (TemplateSession's state, shown in
 * DetailTabs) rendered live in a sandboxed frame with variables you can edit (VariablesEditor),
 * re-rendered by itself when anything it depends on changes on disk. One `POST /previews` per
 * render brings every tab's content: preview, text, HTML, checks.
 */
export class TemplatesView {
  readonly root: HTMLElement
  /** The list, its search box and its keys (app.ts sends j/k, /, Esc there). */
  readonly pane: ListPane
  private readonly detail: HTMLElement
  private readonly session = new TemplateSession()
  private readonly tabs: DetailTabs
  private readonly editor: VariablesEditor
  private readonly toggle: ListToggle
  private readonly head = h('header', { class: 'message-head' })
  private readonly notes = h('div', { class: 'notes', id: 'template-notes' })
  private readonly body: HTMLElement
  private templates: TemplateListItem[] = []
  private line: number | null = null
  private headKey = ''
  private reloadTimer = 0
  private savedCaseTimer = 0

  constructor() {
    this.pane = new ListPane(
      {
        key: 'slug',
        ids: {
          pane: 'template-list-pane',
          title: 'templates-title',
          search: 'template-search',
          count: 'template-count',
          list: 'template-list',
        },
        title: 'Templates',
        searchLabel: 'Filter templates',
        onInput: () => this.renderList(),
      },
      // `/` with the list folded away unfolds it first.
      {
        open: (slug) => goHash(this.hrefFor(slug)),
        back: () => this.back(),
        reveal: () => {
          if (this.toggle.hidden) this.toggle.set(false)
        },
      },
    )
    this.detail = h('section', {
      class: 'pane detail-pane',
      id: 'template-pane',
      'aria-label': 'Template preview',
    })
    this.root = h(
      'div',
      { class: 'split', id: 'view-templates', 'data-open': 'false', hidden: true },
      this.pane.root,
      this.detail,
    )
    this.toggle = new ListToggle(this.root, this.pane.root, 'sendbox.templates.list')
    this.tabs = new DetailTabs({
      prefix: 'template',
      label: 'Template views',
      tabs: TABS,
      widths: TEMPLATE_WIDTHS,
      tab: 'preview',
      view: DEFAULT_VIEW,
      onTab: (tab) => this.setTab(tab),
      onView: (view) => this.setView(view),
    })
    this.editor = new VariablesEditor({
      onVariables: (variables) => this.onVariables(variables),
      onReset: () => this.resetVariables(),
      onSave: (name, variables, overwrite) => this.saveCase(name, variables, overwrite),
    })
    const main = h(
      'div',
      { class: 'template-main' },
      this.notes,
      this.tabs.controls.root,
      this.tabs.panel,
    )
    this.body = h('div', { class: 'template-body' })
    const handle = resizer({
      target: this.body,
      property: '--editor-width',
      controls: 'vars-editor',
      label: 'Resize the variables editor',
      min: 260,
      max: () => Math.max(260, this.body.clientWidth - 360),
      initial: 400,
      storageKey: 'sendbox.editor.width',
    })
    this.body.append(this.editor.root, handle, main)
  }

  /** Escape: from a template back to the list, with the keyboard on that template. */
  back(): boolean {
    if (!this.session.slug) return false
    this.pane.leaving(this.session.slug)
    goHash(this.hrefFor(null))
    return true
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Extract<Route, { view: 'templates' }>): void {
    if (!this.session.isListed) void this.reload()
    const detail = readDetailRoute(route.params, TABS, this.tabs.tab, this.tabs.view, LINE_TABS)
    this.line = detail.line
    if (route.slug) replaceParams(detailParams(TABS, detail))
    this.root.dataset.open = String(!!route.slug)
    this.tabs.sync(detail.tab, detail.view)
    if (this.session.open(route.slug, route.params.get('case'))) this.openTemplate()
    else this.syncPanel()
    this.pane.markCurrent(route.slug)
    if (!route.slug) this.pane.restoreFocus(this.detail)
  }

  private hrefFor(slug: string | null): string {
    const params = new URLSearchParams()
    if (slug && this.tabs.tab !== 'preview') params.set('tab', this.tabs.tab)
    if (slug) setViewParams(params, this.tabs.view)
    return formatHash({ view: 'templates', slug, params })
  }

  private setTab(tab: string): void {
    this.tabs.sync(tab, this.tabs.view)
    this.line = null
    replaceParams({ tab: tabParam(TABS, this.tabs.tab), line: null })
    this.syncPanel()
    this.renderList()
  }

  private setView(view: ViewState): void {
    this.tabs.sync(this.tabs.tab, view)
    replaceParams(viewParams(view))
    this.showNotes()
    this.renderList()
  }

  // ---- the list ------------------------------------------------------------------------

  async reload(): Promise<void> {
    let templates: TemplateListItem[]
    try {
      ;({ templates } = await api.templates())
    } catch (error) {
      toast(`Could not load the templates: ${(error as Error).message}`)
      return
    }
    this.templates = templates
    const { load, picked, changed } = this.session.list(templates)
    this.renderList()
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

  private renderList(): void {
    const needle = this.pane.search.value.trim().toLowerCase()
    const shown = this.templates.filter(
      (t) =>
        !needle ||
        t.slug.toLowerCase().includes(needle) ||
        (t.description ?? '').toLowerCase().includes(needle),
    )
    const listed = this.session.isListed
    this.pane.setCount(
      listed ? String(this.templates.length) : '',
      plural(this.templates.length, 'template'),
    )
    this.pane.show(shown.map((t) => this.renderItem(t)))
    this.pane.setEmpty(
      !listed || shown.length
        ? null
        : this.templates.length
          ? h('p', { class: 'empty-title' }, 'No template matches')
          : [
              h('p', { class: 'empty-title' }, 'No templates yet'),
              h(
                'p',
                null,
                'Add a file such as ',
                h('code', null, 'welcome.liquid'),
                ' to the templates folder; it shows up here at once.',
              ),
            ],
    )
  }

  private renderItem(t: TemplateListItem): HTMLElement {
    return h(
      'li',
      null,
      h(
        'a',
        { class: 'item', href: this.hrefFor(t.slug), 'data-slug': t.slug },
        h(
          'span',
          { class: 'item-top' },
          h('span', { class: 'item-subject item-slug' }, t.slug),
          t.error
            ? h('span', { class: 'badge badge-error' }, 'Does not parse')
            : h(
                'span',
                { class: 'item-time' },
                t.fixtures.length ? plural(t.fixtures.length, 'fixture') : 'no fixture',
              ),
        ),
        t.description
          ? h('span', { class: 'item-desc' }, t.description)
          : h('span', { class: 'item-desc muted' }, 'No description'),
        t.variables.length
          ? h(
              'span',
              { class: 'item-vars' },
              h('span', { class: 'visually-hidden' }, 'Variables: '),
              t.variables.map((v) => h('code', { class: 'chip' }, v)),
            )
          : null,
      ),
    )
  }

  // ---- the open template: loading and rendering ----------------------------------------

  private openTemplate(): void {
    window.clearTimeout(this.savedCaseTimer)
    this.headKey = ''
    const { slug } = this.session
    if (!slug) {
      replace(
        this.detail,
        h(
          'div',
          { class: 'placeholder' },
          h('p', null, 'Select a template to preview it with its fixtures.'),
          h(
            'p',
            { class: 'hint' },
            'Edit its variables live; the preview also re-renders by itself when the template, a partial, a layout or a fixture changes on disk.',
          ),
        ),
      )
      if (document.title !== 'sendbox') document.title = 'Templates · sendbox'
      return
    }
    document.title = `${slug} · Templates · sendbox`
    replace(this.detail, h('p', { class: 'placeholder' }, 'Loading…'))
    if (this.session.isListed) void this.load(false)
  }

  /**
   * Loads the open template (opened, another case, a change on disk): its detail and its fixture
   * case's render, in parallel; then renders the editor's variables if they are not the case's.
   */
  private async load(changedOnDisk: boolean): Promise<void> {
    const plan = this.session.planLoad()
    const slug = this.session.slug
    if (!plan || !slug) {
      if (slug && this.session.isListed)
        replace(
          this.detail,
          h(
            'div',
            { class: 'placeholder' },
            h('p', null, 'There is no template ', h('code', null, slug), ' (any more).'),
            h('p', null, h('a', { href: this.hrefFor(null) }, 'All templates')),
          ),
        )
      return
    }
    const [detail, base] = await Promise.all([
      plan.detail ? api.template(slug).catch(() => null) : null,
      plan.preview ? preview(plan.preview) : null,
    ])
    const next = this.session.loaded(plan.ticket, detail, base, this.editor.read())
    if (!next) return
    this.showDetail()
    if (next.editor) this.editor.setValue(next.editor)
    this.editor.setCases(this.session.summary?.fixtures.map((c) => c.name) ?? [])
    this.updateEdited()
    if (next.render) await this.render(next.render)
    else this.showOutcome()
    if (changedOnDisk)
      announce(
        this.session.outcome?.ok ? `The preview of ${slug} was updated` : `${slug} has an error`,
      )
  }

  /** One POST /previews for these variables; an answer overtaken by a newer request is dropped. */
  private async render(variables: Variables): Promise<void> {
    const slug = this.session.slug
    if (!slug) return
    const ticket = this.session.beginRender()
    this.editor.setStatus('Rendering…', 'busy')
    const answer = await preview({ template: slug, variables })
    if (this.session.rendered(ticket, variables, answer)) this.showOutcome()
  }

  /** The editor's text changed (and parses). */
  private onVariables(variables: Variables): void {
    this.updateEdited()
    if (this.session.edit(variables)) void this.render(variables)
    else this.showOutcome()
  }

  private updateEdited(): void {
    this.editor.setEdited(this.session.edited(this.editor.read()), this.session.baseName)
  }

  private resetVariables(): void {
    this.editor.setValue(this.session.baseVariables)
    this.onVariables(this.session.baseVariables)
    this.editor.textarea.focus()
  }

  private setCase(name: string): void {
    this.session.setCase(name)
    replaceParams({ case: name })
    void this.load(false)
  }

  private async saveCase(
    name: string,
    variables: Variables,
    overwrite: boolean,
  ): Promise<SaveResult> {
    const slug = this.session.slug
    if (!slug) return { ok: false, code: 'gone', message: 'No template is open.' }
    try {
      const saved = await api.saveFixture(slug, name, variables, overwrite)
      announce(`Saved as the fixture case ${name}`)
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

  // ---- the open template: what shows ---------------------------------------------------

  /** The head and the body, placed once per template; the head again when the summary changed. */
  private showDetail(): void {
    const summary = this.session.summary
    if (!summary) return
    if (!this.body.isConnected) {
      replace(
        this.detail,
        h(
          'article',
          { class: 'message', 'aria-labelledby': 'template-title' },
          this.head,
          this.body,
        ),
      )
    }
    const key = JSON.stringify([summary, this.session.caseName])
    if (key !== this.headKey) this.renderHead(summary)
  }

  private renderHead(t: TemplateListItem): void {
    this.headKey = JSON.stringify([t, this.session.caseName])
    replace(
      this.head,
      templateHead(t, {
        backHref: this.hrefFor(null),
        toggle: this.toggle.button,
        tabList: this.tabs.tabList,
        selectedCase: this.session.selectedCase,
        onCase: (name) => this.setCase(name),
      }),
    )
  }

  /** The outcome on screen: notes, badge, editor state, and the selected tab's panel. */
  private showOutcome(): void {
    const { outcome } = this.session
    if (!outcome) return
    // Nothing to edit in a template that does not parse.
    const parses = outcome.ok || outcome.error.code !== 'template_invalid'
    this.editor.root.hidden = !parses
    this.body.dataset.editor = parses ? 'on' : 'off'
    this.tabs.setChecks(outcome.ok ? outcome.preview.checks : null)
    if (outcome.ok) {
      const missing = outcome.preview.missing
      this.editor.setStatus(
        this.session.showsCase
          ? 'Showing the fixture case.'
          : missing.length
            ? `Preview updated; ${plural(missing.length, 'variable')} missing.`
            : 'Preview updated.',
        'ok',
      )
    } else
      this.editor.setStatus(
        this.session.showsCase || outcome.error.code.startsWith('fixture')
          ? 'This case does not render: the error is in the preview.'
          : 'The template fails to render with these variables: the error is in the preview.',
        'error',
      )
    this.showNotes()
    this.renderPanel()
  }

  private showNotes(): void {
    const { outcome } = this.session
    const ok = outcome?.ok ? outcome.preview : null
    showTemplateNotes(this.notes, {
      missing: ok?.missing ?? [],
      warnings: ok?.warnings ?? [],
      noDarkRules: !!ok && this.tabs.view.dark === 'media' && !hasDarkRules(ok.html),
    })
  }

  /** Route changed only in tab, view or line: the panel follows where it must. */
  private syncPanel(): void {
    if (this.tabs.shown !== this.tabs.tab) this.renderPanel()
    else if (LINE_TABS.includes(this.tabs.tab)) this.tabs.revealLine(this.line)
  }

  private renderPanel(): void {
    const { outcome, detail, slug } = this.session
    const tab = this.tabs.tab
    if (!slug || !this.body.isConnected) return
    this.tabs.showControls(tab === 'preview' && !!outcome?.ok)
    if (tab === 'liquid') {
      if (detail) this.tabs.showSource(detail.source, this.line, `The Liquid source of ${slug}`)
      else
        this.tabs.show(
          outcome && !outcome.ok
            ? errorCard(outcome.error)
            : h('p', { class: 'placeholder' }, 'Loading…'),
        )
      return
    }
    if (tab === 'variables') {
      const values = outcome?.ok ? outcome.variables : null
      this.tabs.show(
        variablesTable(
          detail,
          detail?.variables ?? this.session.summary?.variables ?? [],
          values,
          this.session.showsCase && this.session.caseName
            ? `Values in this render (fixture ${this.session.caseName})`
            : 'Values in this render',
        ),
      )
      return
    }
    if (!RENDER_TABS.has(tab) || !outcome) return
    if (!outcome.ok) {
      this.tabs.show(errorCard(outcome.error, (place) => this.liquidLineHref(place)))
      return
    }
    const { preview: answer } = outcome
    switch (tab) {
      case 'preview':
        this.tabs.showFrame(outcome.frame, `Preview of the template ${slug}`)
        return
      case 'text':
        this.tabs.show(
          h('pre', { class: 'text-body', id: 'template-text', tabindex: '0' }, answer.text),
        )
        return
      case 'source':
        this.tabs.showSource(answer.html, this.line, 'The rendered HTML source')
        return
      case 'checks':
        this.tabs.show(
          checksTab('template', answer.checks, null, (line) =>
            formatHash({ view: 'templates', slug, params: sourceLineParams(line) }),
          ),
        )
        return
    }
  }

  /** A place in the open template's own file (not a partial): a link to the Liquid tab at its line. */
  private liquidLineHref({ file, line }: SourceProblem): string | null {
    const { slug, detail } = this.session
    if (
      !slug ||
      !detail ||
      line === undefined ||
      (file !== `${slug}.liquid` && file !== `${slug}.html`)
    )
      return null
    return formatHash({ view: 'templates', slug, params: sourceLineParams(line, 'liquid') })
  }
}

/** A soft preview; a failed request reads as one (the page shows both the same way). */
const preview = (body: Parameters<typeof api.preview>[0]): Promise<Soft<LivePreview>> =>
  api.preview(body).catch((error: unknown) => ({ ok: false as const, error: softError(error) }))
