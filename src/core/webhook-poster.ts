/**
 * What the webhook dispatcher needs of an HTTP client: a POST with a deadline, never a rejection.
 * The client itself (undici) is the server's (src/server/webhooks-client.ts), which hands it in:
 * the domain makes no HTTP requests of its own.
 */

export interface PostResult {
  /** null when no response came (refused, reset, timed out). */
  status: number | null
  /** The start of the response body (at most `bodyLimit` characters). */
  body: string
  /** Why there was no complete response, or null. */
  error: string | null
  durationMs: number
}

export interface PostOptions {
  headers: Record<string, string>
  /** The whole attempt, connection to last byte, must fit in this. */
  timeoutMs: number
  /** How much of the response body to keep. */
  bodyLimit: number
}

export interface Poster {
  /** `done` never rejects: a failure is a result with `error`. `abort` ends it at once. */
  post(
    url: string,
    body: string,
    options: PostOptions,
  ): { done: Promise<PostResult>; abort(): void }
  /** Closes every connection; requests not yet answered end with an error. */
  close(): void
}
