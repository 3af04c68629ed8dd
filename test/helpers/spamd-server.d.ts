/** Types of spamd-server.js (plain JavaScript, so that bench/ and the global setup load it as is). */
export interface Spamd {
  host: string
  port: number
  dir: string
  /** Settles once spamd answers PING; rejects with the end of its log when it does not. */
  ready: Promise<void>
  /** What spamd has written so far (its last 20,000 characters). */
  log(): string
  stop(): Promise<void>
}
export function findSpamd(): string | null
export function pingPort(port: number, host?: string): Promise<boolean>
export function startSpamd(options?: { bin?: string | null; port?: number }): Promise<Spamd>
