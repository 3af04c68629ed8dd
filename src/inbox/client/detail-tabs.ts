import type { CheckReport } from './api.js'
import { showChecksBadge } from './checks.js'
import {
  revealLine,
  sandboxedFrame,
  selectTab,
  sourceView,
  tabList,
  type TabSpec,
} from './components.js'
import { h, isTyping, replace, type Child } from './dom.js'
import {
  onSystemSchemeChange,
  PreviewControls,
  type ViewState,
  type WidthPreset,
} from './preview.js'
import { pickTab, updateFrame } from './split.js'

/**
 * The detail side of a view: a tab list, the preview options (width, colours, images) and one
 * panel that shows the selected tab, with the sandboxed frame kept across re-renders so a new
 * document never flashes an empty pane. ←/→ switch tabs from anywhere in the page, not only on
 * the tab list, except where they mean something else (typing, a slider, a splitter).
 */

export interface DetailTabsOptions {
  /** Id prefix: `template` gives `template-tab-text`, `template-panel`, `template-width-input`. */
  prefix: string
  label: string
  tabs: TabSpec[]
  widths: WidthPreset[]
  tab: string
  view: ViewState
  /** A tab was picked (click, arrows): the view shows it and puts it in the URL. */
  onTab(tab: string): void
  /** The preview options changed. */
  onView(view: ViewState): void
}

/** Where ←/→ already mean something: text fields (isTyping), sliders, splitters, other tab lists. */
const OWN_ARROWS =
  '[role="separator"], [role="slider"], [role="tablist"], [role="listbox"], [role="radiogroup"], [role="menu"], input[type="range"]'

export class DetailTabs {
  readonly tabList: HTMLElement
  readonly controls: PreviewControls
  readonly panel: HTMLElement
  private frame: HTMLIFrameElement | null = null
  private src: string | null = null
  private current: string
  private state: ViewState

  constructor(private readonly options: DetailTabsOptions) {
    this.current = options.tab
    this.state = options.view
    this.tabList = tabList(options.prefix, options.label, options.tabs, options.tab, (tab) =>
      options.onTab(tab),
    )
    this.controls = new PreviewControls(options.prefix, options.widths, options.view, (view) =>
      options.onView(view),
    )
    this.panel = h('div', {
      class: 'panel',
      id: `${options.prefix}-panel`,
      role: 'tabpanel',
      'aria-labelledby': `${options.prefix}-tab-${options.tab}`,
    })
    document.addEventListener('keydown', (event) => this.onKey(event))
    // "Light" is asked for explicitly when the system is dark: follow the system's changes.
    onSystemSchemeChange(() => updateFrame(this.frame, this.state, this.src))
  }

  get tab(): string {
    return this.current
  }

  get view(): ViewState {
    return this.state
  }

  /** A tab and view from the route or a click: the tab list, the controls and the frame follow. */
  sync(tab: string, view: ViewState): void {
    this.current = pickTab(this.options.tabs, tab)
    this.state = view
    selectTab(this.tabList, this.current)
    // A tab list that scrolls sideways (a phone) keeps the selected tab in sight.
    if (this.tabList.scrollWidth > this.tabList.clientWidth)
      this.tabList
        .querySelector('[aria-selected="true"]')
        ?.scrollIntoView({ block: 'nearest', inline: 'nearest' })
    this.controls.sync(view)
    this.panel.setAttribute('aria-labelledby', `${this.options.prefix}-tab-${this.current}`)
    updateFrame(this.frame, view, this.src)
  }

  /** Which tab the panel's content is for (null: none yet); the view re-renders when it differs. */
  get shown(): string | null {
    return this.panel.dataset.tab ?? null
  }

  /**
   * The panel shows this document in the sandboxed frame: the same frame when it is already
   * there (a new document, no flash of an empty pane), else a new one.
   */
  showFrame(src: string, title: string): void {
    this.src = src
    this.panel.dataset.tab = this.current
    if (this.frame?.isConnected && this.panel.contains(this.frame)) {
      this.frame.title = title
      updateFrame(this.frame, this.state, src)
      return
    }
    const { canvas, frame } = sandboxedFrame(src, title, this.state)
    this.frame = frame
    replace(this.panel, canvas)
  }

  /** The panel shows this instead of a frame. */
  show(...content: Child[]): void {
    this.frame = null
    this.src = null
    this.panel.dataset.tab = this.current
    replace(this.panel, content)
  }

  /** Source text with numbered lines, the marked line in sight (`line`, 1-based). */
  showSource(text: string, line: number | null, label: string): void {
    this.show(sourceView(text, line, label))
    revealLine(this.panel.firstElementChild, line)
  }

  /** The marked line again (the route changed only in `line`). */
  revealLine(line: number | null): void {
    revealLine(this.panel.querySelector('pre'), line)
  }

  /** The preview options only make sense over the frame. */
  showControls(on: boolean): void {
    this.controls.root.toggleAttribute('hidden', !on)
  }

  /** The Checks tab's badge: the report's errors or warnings; none without a report. */
  setChecks(report: CheckReport | null): void {
    showChecksBadge(this.tabList, report)
  }

  /** The next (1) or previous (-1) tab, round the end. */
  step(delta: number): void {
    const { tabs } = this.options
    const at = tabs.findIndex((t) => t.id === this.current)
    this.options.onTab(tabs[(at + delta + tabs.length) % tabs.length]!.id)
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey)
      return
    // Only while these tabs are on screen (their view is open, with an item).
    if (!this.tabList.isConnected || this.tabList.getClientRects().length === 0) return
    if (document.querySelector('dialog[open]')) return
    const target = event.target instanceof Element ? event.target : null
    if (isTyping(target) || target?.closest(OWN_ARROWS)) return
    event.preventDefault()
    this.step(event.key === 'ArrowRight' ? 1 : -1)
  }
}
