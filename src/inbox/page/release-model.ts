import { signal } from '@preact/signals'
import { api, ApiError, type RelayInfo, type ReleaseResult } from './api.js'
import type { Page } from './page.js'

/** Where the form is: nothing sent yet, on its way, what the relay said, or why it did not go. */
export type ReleaseState =
  | { state: 'idle' }
  | { state: 'sending' }
  | { state: 'sent'; result: ReleaseResult }
  | { state: 'failed'; code: string; message: string }

/** The last addresses released to, kept in the browser for the next time. */
export const RELEASE_TO_KEY = 'sendbox.release.to'

/**
 * "Send to a real inbox" on a message: the relay's settings (loaded once, when the form first
 * opens), the addresses typed (the last ones remembered in localStorage), and what the last
 * release said. Resets when another message opens.
 *
 * @example
 * const release = new ReleaseModel(page)
 * release.toggle()
 * await release.send('msg_…')
 */
export class ReleaseModel {
  readonly open = signal(false)
  readonly relay = signal<RelayInfo | null>(null)
  readonly relayError = signal<string | null>(null)
  readonly to = signal(remembered())
  readonly result = signal<ReleaseState>({ state: 'idle' })
  private loading: Promise<void> | null = null

  constructor(private readonly page: Page) {}

  /** Opens or closes the form; the relay's settings load at the first open. */
  toggle(): void {
    this.open.value = !this.open.peek()
    if (this.open.peek()) void this.loadRelay()
  }

  /** Another message opened: the form closes and forgets the last result (not the addresses). */
  reset(): void {
    this.open.value = false
    this.result.value = { state: 'idle' }
  }

  loadRelay(): Promise<void> {
    return (this.loading ??= api.relay().then(
      (relay) => {
        this.relay.value = relay
      },
      (error: Error) => {
        this.relayError.value = error.message
        this.loading = null
      },
    ))
  }

  /** The addresses typed, split at commas and spaces. */
  addresses(): string[] {
    return this.to
      .peek()
      .split(/[\s,;]+/)
      .filter(Boolean)
  }

  async send(id: string): Promise<void> {
    const to = this.addresses()
    if (to.length === 0) {
      this.result.value = {
        state: 'failed',
        code: 'validation_failed',
        message: 'Type the address to send it to.',
      }
      return
    }
    this.result.value = { state: 'sending' }
    try {
      const result = await api.release(id, to)
      this.result.value = { state: 'sent', result }
      remember(to.join(', '))
      this.page.announce(`Sent to ${result.accepted.join(', ')}`)
    } catch (error) {
      const failure =
        error instanceof ApiError
          ? { code: error.code, message: error.message }
          : { code: 'network_error', message: String(error) }
      this.result.value = { state: 'failed', ...failure }
    }
  }
}

function remembered(): string {
  try {
    return localStorage.getItem(RELEASE_TO_KEY) ?? ''
  } catch {
    return '' // storage is off
  }
}

function remember(to: string): void {
  try {
    localStorage.setItem(RELEASE_TO_KEY, to)
  } catch {
    // storage is off: nothing remembered, nothing lost
  }
}
