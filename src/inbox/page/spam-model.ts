import { signal } from '@preact/signals'
import { ApiError, api, type SpamReport } from './api.js'

/** What the Checks tab shows of the open message's spam score. */
export type SpamState =
  | { state: 'idle' }
  | { state: 'loading'; id: string }
  | { state: 'ready'; id: string; report: SpamReport }
  /** No `--spamassassin`: the tab says how to turn it on. */
  | { state: 'off' }
  | { state: 'failed'; id: string; message: string }

/**
 * The open message's SpamAssassin score (GET …/messages/:id/spam): asked when a message opens,
 * again on "Try again" after spamd failed. The server keeps each message's score, so opening a
 * message again costs spamd nothing.
 */
export class SpamModel {
  readonly score = signal<SpamState>({ state: 'idle' })
  /** Whether the server has `--spamassassin`: asked once, before the first score (GET /spam). */
  private configured: Promise<boolean> | null = null

  /** Another message opens. Off stays off: the flag is the server's, set at its start. */
  reset(): void {
    if (this.score.value.state !== 'off') this.score.value = { state: 'idle' }
  }

  /** Scores message `id`; an answer for a message no longer open is dropped. */
  async load(id: string): Promise<void> {
    if (this.score.value.state === 'off') return
    this.score.value = { state: 'loading', id }
    // Without the flag, no message's score is asked: each would be a 409 in the console.
    this.configured ??= api.spamCheck().then(
      (check) => check.configured,
      () => true,
    )
    if (!(await this.configured)) {
      this.score.value = { state: 'off' }
      return
    }
    const current = () => {
      const now = this.score.value
      return now.state !== 'idle' && now.state !== 'off' && now.id === id
    }
    try {
      const report = await api.messageSpam(id)
      if (current()) this.score.value = { state: 'ready', id, report }
    } catch (error) {
      if (!current()) return
      this.score.value =
        error instanceof ApiError && error.code === 'spam_check_not_configured'
          ? { state: 'off' }
          : { state: 'failed', id, message: (error as Error).message }
    }
  }
}
