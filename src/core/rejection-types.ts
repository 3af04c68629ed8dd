/** A refused send, as `GET /_sandbox/api/rejections` lists it (types only: the event bus uses them too). */
export interface Rejection {
  id: string
  /** ISO time of the answer. */
  at: string
  status: number
  code: string
  message: string
  /** The error's details, at most 10, each cut to a few hundred characters. */
  details: unknown[]
  /** What the request said, as far as it was read before the check that failed (null: unknown). */
  template: string | null
  from: string | null
  to: string[] | null
  subject: string | null
  /** Who sent it, when the token was accepted (never the token itself). */
  project: string | null
  tokenHint: string | null
}

export type RejectionInput = Omit<Rejection, 'id' | 'at'>
