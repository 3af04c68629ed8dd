import { h } from './dom.js'

/**
 * "Hide list" / "Show list": on a wide screen, the open item can take the whole width. The state
 * is `data-list="hidden"` on the split (the stylesheet hides the list pane only while an item is
 * open, so the list route always shows it) and is remembered in localStorage.
 */
export class ListToggle {
  readonly button: HTMLButtonElement

  constructor(
    private readonly split: HTMLElement,
    pane: HTMLElement,
    private readonly storageKey: string,
  ) {
    this.button = h('button', {
      type: 'button',
      class: 'btn btn-quiet list-toggle',
      id: `${pane.id}-toggle`,
      'aria-controls': pane.id,
      onclick: () => this.set(!this.hidden),
    })
    let hidden = false
    try {
      hidden = localStorage.getItem(storageKey) === 'hidden'
    } catch {
      // Storage off: the list shows.
    }
    this.set(hidden, false)
  }

  get hidden(): boolean {
    return this.split.dataset.list === 'hidden'
  }

  set(hidden: boolean, save = true): void {
    if (hidden) this.split.dataset.list = 'hidden'
    else delete this.split.dataset.list
    this.button.setAttribute('aria-expanded', String(!hidden))
    this.button.textContent = hidden ? 'Show list' : 'Hide list'
    this.button.title = hidden
      ? 'Show the list beside this one'
      : 'Hide the list: this one takes the whole width'
    if (!save) return
    try {
      localStorage.setItem(this.storageKey, hidden ? 'hidden' : 'shown')
    } catch {
      // Not remembered; still applied.
    }
  }
}
