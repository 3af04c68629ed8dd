import { api, ApiError, templatePath, type RenderPreview, type SourceProblem, type TemplateChange, type TemplateDetail, type TemplateSummary } from './api.js'
import { applyWidth, jsonBlock, normalizeWidth, sandboxedFrame, selectTab, selectWidth, tabList, widthPresets } from './components.js'
import { announce, h, replace, toast } from './dom.js'
import { fullTime, plural, timeAgo } from './format.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'

const TABS = [
  { id: 'preview', label: 'Preview' },
  { id: 'text', label: 'Text' },
  { id: 'variables', label: 'Variables' },
]
const normalizeTab = (tab: string | null): string => (TABS.some((t) => t.id === tab) ? tab! : 'preview')

type Outcome = { ok: true; preview: RenderPreview } | { ok: false; error: ApiError }

/**
 * Every template with its description and variables; an open one renders with a fixture case
 * in the sandboxed frame and re-renders by itself when anything it depends on changes on disk.
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
  private width = ''
  private version = 0
  private outcome: Outcome | null = null
  private info: TemplateDetail | null = null
  private reloadTimer = 0
  private renderSeq = 0
  private frame: HTMLIFrameElement | null = null
  private body: HTMLElement | null = null
  private tabs: HTMLElement | null = null
  private widths: HTMLElement | null = null
  private pending: Set<string> = new Set()
  private focusAfterRoute: string | null = null
  private searchAfterRoute = false

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
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Extract<Route, { view: 'templates' }>): void {
    if (!this.loaded) void this.reload()
    if (route.params.has('tab')) this.tab = normalizeTab(route.params.get('tab'))
    if (route.params.has('width')) this.width = normalizeWidth(route.params.get('width'))
    const caseName = route.params.get('case')
    if (route.slug) replaceParams({ tab: this.tab === 'preview' ? null : this.tab, width: this.width || null })
    this.root.dataset.open = String(!!route.slug)
    const changed = route.slug !== this.slug || caseName !== this.caseName
    this.slug = route.slug
    this.caseName = caseName
    if (changed || !this.body) this.openTemplate()
    else this.syncDetail()
    this.markCurrent()
    if (!route.slug && this.searchAfterRoute) {
      this.searchAfterRoute = false
      this.focusAfterRoute = null
      this.search.focus()
    }
    if (!route.slug && this.focusAfterRoute) {
      this.list.querySelector<HTMLElement>(`[data-slug="${CSS.escape(this.focusAfterRoute)}"]`)?.focus()
      this.focusAfterRoute = null
    }
  }

  private hrefFor(slug: string | null): string {
    const params = new URLSearchParams()
    if (slug && this.tab !== 'preview') params.set('tab', this.tab)
    if (slug && this.width) params.set('width', this.width)
    return formatHash({ view: 'templates', slug, params })
  }

  // ---- the list ------------------------------------------------------------------------

  async reload(): Promise<void> {
    try {
      const { templates } = await api.templates()
      this.templates = templates
      this.loaded = true
      this.renderList()
      const affected = this.slug !== null && (this.pending.has(this.slug) || this.pending.has('*'))
      this.pending.clear()
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
    const focusedSlug = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('#template-list [data-slug]')?.dataset.slug
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
    if (focusedSlug) this.list.querySelector<HTMLElement>(`[data-slug="${CSS.escape(focusedSlug)}"]`)?.focus()
  }

  private markCurrent(): void {
    for (const item of this.list.querySelectorAll<HTMLElement>('[data-slug]')) {
      if (item.dataset.slug === this.slug) item.setAttribute('aria-current', 'true')
      else item.removeAttribute('aria-current')
    }
  }

  // ---- keyboard ------------------------------------------------------------------------

  private links(): HTMLElement[] {
    return [...this.list.querySelectorAll<HTMLElement>('a[data-slug]')]
  }

  focusItem(index: number): void {
    const links = this.links()
    links[Math.max(0, Math.min(index, links.length - 1))]?.focus()
  }

  move(delta: number): void {
    const links = this.links()
    if (!links.length) return
    const active = links.indexOf(document.activeElement as HTMLElement)
    const current = active !== -1 ? active : links.findIndex((l) => l.dataset.slug === this.slug)
    const next = current === -1 ? (delta > 0 ? 0 : links.length - 1) : Math.max(0, Math.min(links.length - 1, current + delta))
    const link = links[next]!
    if (this.list.getClientRects().length > 0) link.focus()
    else if (link.dataset.slug !== this.slug) goHash(this.hrefFor(link.dataset.slug!))
  }

  back(): boolean {
    if (!this.slug) return false
    this.focusAfterRoute = this.slug
    goHash(this.hrefFor(null))
    return true
  }

  /** `/`: the search box, coming back to the list first when it is not on screen. */
  focusSearch(): void {
    if (this.search.getClientRects().length > 0) {
      this.search.focus()
      this.search.select()
    } else {
      this.searchAfterRoute = true
      this.back()
    }
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
    if (!this.slug) {
      replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'Select a template to preview it with its fixtures.'), h('p', { class: 'hint' }, 'The preview re-renders by itself when the template, a partial, a layout or a fixture changes on disk.')))
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

  /** Renders the open template again: the frame reloads in place, or the error panel shows. */
  private async refresh(changedOnDisk: boolean): Promise<void> {
    const slug = this.slug
    if (!slug) return
    const seq = ++this.renderSeq
    const summary = this.summary()
    if (!summary) {
      this.body = null
      this.frame = null
      replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'There is no template ', h('code', null, slug), ' (any more).'), h('p', null, h('a', { href: this.hrefFor(null) }, 'All templates'))))
      return
    }
    let outcome: Outcome
    if (summary.error) {
      // Known not to parse from the list itself: no need to ask for a render that must fail.
      const { file = `${slug}`, line, column, message = 'The template does not parse.' } = summary.error
      outcome = { ok: false, error: new ApiError(422, 'template_invalid', message, [{ file, line, column, message }]) }
    } else {
      try {
        outcome = { ok: true, preview: await api.render(slug, this.caseName) }
      } catch (error) {
        outcome = { ok: false, error: error instanceof ApiError ? error : new ApiError(0, 'network_error', String(error)) }
      }
    }
    let info: TemplateDetail | null = null
    if (outcome.ok) info = await api.template(slug).catch(() => null)
    if (seq !== this.renderSeq || slug !== this.slug) return
    this.outcome = outcome
    this.info = info
    this.version += 1
    if (!this.body) this.renderDetail(summary)
    else if (JSON.stringify(summary) !== this.headKey) this.renderHead(summary)
    this.renderBody()
    if (changedOnDisk) announce(outcome.ok ? `The preview of ${slug} was updated` : `${slug} has an error`)
  }

  private head: HTMLElement | null = null

  private renderDetail(summary: TemplateSummary): void {
    this.tabs = tabList('template', 'Template views', TABS, this.tab, (tab) => this.setTab(tab))
    this.widths = widthPresets(this.width, (width) => this.setWidth(width))
    this.head = h('header', { class: 'message-head' })
    this.body = h('div', { class: 'template-body' })
    replace(this.detail, h('article', { class: 'message', 'aria-labelledby': 'template-title' }, this.head, this.body))
    this.renderHead(summary)
  }

  private headKey = ''

  private renderHead(t: TemplateSummary): void {
    if (!this.head) return
    this.headKey = JSON.stringify(t)
    const cases = t.fixtures
    const selected = this.caseName ?? cases.find((c) => !c.error)?.name ?? ''
    const caseControl =
      cases.length > 1
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
        : h('p', { class: 'field-static' }, cases.length === 1 ? ['Fixture ', h('code', null, cases[0]!.name)] : 'No fixture: front-matter examples')
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
      h('div', { class: 'toolbar' }, this.tabs, h('div', { class: 'toolbar-end' }, caseControl, this.widths)),
    )
  }

  private syncDetail(): void {
    if (!this.tabs) return
    selectTab(this.tabs, this.tab)
    selectWidth(this.widths, this.width)
    applyWidth(this.frame, this.width)
    if (this.body?.dataset.tab !== this.tab) this.renderBody()
  }

  private setTab(tab: string): void {
    this.tab = normalizeTab(tab)
    replaceParams({ tab: this.tab === 'preview' ? null : this.tab })
    this.syncDetail()
    this.renderList()
  }

  private setWidth(width: string): void {
    this.width = normalizeWidth(width)
    replaceParams({ width: this.width || null })
    this.syncDetail()
    this.renderList()
  }

  private setCase(name: string): void {
    this.caseName = name
    replaceParams({ case: name })
    void this.refresh(false)
  }

  private renderBody(): void {
    const body = this.body
    const outcome = this.outcome
    if (!body || !outcome || !this.slug) return
    body.dataset.tab = this.tab
    this.widths?.toggleAttribute('hidden', this.tab !== 'preview' || !outcome.ok)
    if (!outcome.ok) {
      this.frame = null
      replace(body, errorPanel(outcome.error))
      return
    }
    const { preview } = outcome
    const notes = [
      preview.missing.length
        ? h('div', { class: 'note note-warn', id: 'missing-variables', role: 'note' }, h('strong', null, 'Missing from this fixture: '), preview.missing.map((v, i) => [i ? ', ' : '', h('code', null, v)]), '. They render empty here; a send without them is refused.')
        : null,
      preview.warnings.length ? h('div', { class: 'note', role: 'note' }, h('ul', { class: 'plain' }, preview.warnings.map((w) => h('li', null, h('code', null, w.code), ' ', w.message)))) : null,
    ]
    const panelAttrs = { class: 'panel', id: 'template-panel', role: 'tabpanel', 'aria-labelledby': `template-tab-${this.tab}` }
    if (this.tab === 'preview') {
      const params = new URLSearchParams()
      if (this.caseName) params.set('case', this.caseName)
      // A new query string makes the frame load again; the server ignores `v`.
      params.set('v', String(this.version))
      const src = `${templatePath(this.slug)}/preview?${params}`
      if (this.frame?.isConnected && body.querySelector('#template-panel')) {
        // Same frame, new document: no flash of an empty pane while it reloads.
        replaceNotes(body, notes)
        this.frame.src = src
        return
      }
      const { canvas, frame } = sandboxedFrame(src, `Preview of the template ${this.slug}`, this.width)
      this.frame = frame
      replace(body, h('div', { class: 'notes' }, notes), h('div', panelAttrs, canvas))
      return
    }
    this.frame = null
    if (this.tab === 'text') {
      replace(body, h('div', { class: 'notes' }, notes), h('div', panelAttrs, h('pre', { class: 'text-body', tabindex: '0' }, preview.text)))
      return
    }
    const declared = this.info?.declared ?? {}
    const required = new Set(this.info?.required ?? [])
    const names = this.info?.variables ?? this.summary()?.variables ?? []
    replace(
      body,
      h('div', { class: 'notes' }, notes),
      h(
        'div',
        panelAttrs,
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
          h('h3', null, this.caseName ? `Sample values (fixture ${this.caseName})` : 'Sample values'),
          jsonBlock(preview.variables),
        ]),
      ),
    )
  }
}

function replaceNotes(body: HTMLElement, notes: (HTMLElement | null)[]): void {
  const box = body.querySelector('.notes')
  if (box) replace(box, notes)
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
