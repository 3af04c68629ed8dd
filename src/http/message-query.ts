import { WAIT_DEFAULT_MS, WAIT_MAX_MS } from '../core/wait-types.js'
import { MESSAGE_STATUSES } from '../store/recipients.js'
import { enumParam, intParam, patternParam, textParam, timeParam } from './param-schemas.js'

/**
 * The message filters, paging, wait timeout and cursors: query parameters defined once for the
 * inspector's routes, the document and the MCP tools' arguments. Here, under src/http with
 * imports of constants only, so that `sendbox mcp` reads them without loading the server.
 */

export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 1000

export const FILTER_QUERY = {
  to: textParam(
    'Only messages with a recipient (name or address) containing this, case-insensitive.',
    { examples: ['ada@example.com'] },
  ),
  recipient: textParam(
    'Only messages one of whose recipients has exactly this address, case-insensitive (where `to` is a substring: `ada@example.com` does not match `lovelace-ada@example.com` here).',
    { examples: ['ada@example.com'] },
  ),
  from: textParam('Only messages whose sender (name or address) contains this, case-insensitive.', {
    examples: ['acme'],
  }),
  template: textParam('Only messages whose template slug contains this, case-insensitive.', {
    examples: ['welcome'],
  }),
  subject: textParam('Only messages whose subject contains this, case-insensitive.', {
    examples: ['reset'],
  }),
  project: textParam(
    "Only messages sent with this project: 8 hex characters of the token's SHA-256 (exact).",
    { examples: ['1f2e3d4c'] },
  ),
  since: timeParam(
    'Only messages created at or after this time: RFC 3339 (`2026-11-21T10:00:00Z`), or a date (midnight UTC).',
  ),
  status: enumParam(
    MESSAGE_STATUSES,
    'Only messages in this overall delivery status (docs/delivery.md): `sent` until every recipient has settled, then `delivered`, or the first of `bounced`, `complained`, `suppressed`, `deferred`.',
  ),
}

export const PAGING_QUERY = {
  limit: intParam(
    { minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT },
    'How many messages to answer with, newest first.',
  ),
  // Past the 2^53 − 1 a JavaScript number holds exactly, an offset could not be honoured.
  offset: intParam(
    { minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
    'How many of the newest matches to skip.',
  ),
}

export const FIELDS_QUERY = {
  fields: enumParam(
    ['full', 'summary'],
    "`summary` leaves out each message's `html`, `text` and `templateVariables`: what a list needs, at a fraction of the bytes.",
    'full',
  ),
}

export const TIMEOUT_QUERY = {
  timeout: intParam(
    { minimum: 0, maximum: WAIT_MAX_MS, default: WAIT_DEFAULT_MS },
    'How long to wait for a match to arrive, in milliseconds.',
  ),
}

/** A cursor: a position in the log, as a list's `cursor` hands it out (digits; opaque to clients). */
const CURSOR_PATTERN = /^\d{1,15}$/

/** `after=<cursor>` on a list: only messages stored after the log stood there. */
export const CURSOR_QUERY = {
  after: patternParam(
    CURSOR_PATTERN,
    'a cursor (the `cursor` of an earlier list)',
    'Only messages stored after this cursor: the `cursor` an earlier list answered with.',
    { examples: ['42'] },
  ),
}

/** `after=now|<cursor>` on a wait: only messages stored after it began, or after the cursor. */
export const AFTER_QUERY = {
  after: patternParam(
    /^(?:now|\d{1,15})$/,
    '`now` or a cursor (the `cursor` of a list)',
    '`now`: only a message stored after the wait began counts (none already stored). A cursor (the `cursor` of a list, taken before the action): only a message stored after it counts, the newest such at once, so a wait sent after the action still finds its message. Without it, the newest stored match answers at once.',
    { examples: ['now', '42'] },
  ),
}
