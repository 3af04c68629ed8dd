import { signal } from '@preact/signals'
import { api, type SuppressionEntry as Suppression } from './api.js'
import { plural } from './format.js'
import type { Page } from './page.js'

/**
 * The Suppressions view's state: the addresses a hard bounce or a complaint put on a project's
 * list, newest first, each with the subject of the message that did it; live over the SSE
 * `suppression` event.
 */
export class SuppressionsModel {
  readonly items = signal<Suppression[] | null>(null)
  private shown = false

  constructor(private readonly page: Page) {}

  show(): void {
    if (!this.shown) void this.reload()
    this.shown = true
  }

  hide(): void {
    this.shown = false
  }

  resync(): void {
    if (this.shown) void this.reload()
  }

  /** SSE `suppression`: added or removed somewhere. */
  onChange(): void {
    if (this.shown) void this.reload()
  }

  async reload(): Promise<void> {
    try {
      this.items.value = (await api.suppressions()).suppressions
    } catch (error) {
      this.page.toast(`Could not load the suppression list: ${(error as Error).message}`)
    }
  }

  async remove(s: Suppression): Promise<void> {
    try {
      await api.deleteSuppression(s.address, s.project)
      this.page.announce(`${s.address} removed from the suppression list`)
      await this.reload()
    } catch (error) {
      this.page.toast(`Could not remove ${s.address}: ${(error as Error).message}`)
    }
  }

  async clearAll(): Promise<void> {
    const count = this.items.peek()?.length ?? 0
    const ok = await this.page.confirm({
      title: 'Empty the suppression list?',
      text: `${plural(count, 'address', 'addresses')} will be removed; sends to them go out again.`,
      confirm: 'Remove all',
    })
    if (!ok) return
    try {
      await api.clearSuppressions()
      this.page.announce('The suppression list is empty')
      await this.reload()
    } catch (error) {
      this.page.toast(`Could not empty the list: ${(error as Error).message}`)
    }
  }
}
