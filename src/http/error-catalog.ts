import * as v from 'valibot'
import { FIELD_PROBLEM_CODES } from '../lib/problems.js'
import { component, described, type Schema } from '../lib/schema.js'

/**
 * Every error code sendbox answers with: what it means and the shape of one item of its
 * `details`. `apiError` takes only these codes (the compiler holds the routes to the list), and
 * the OpenAPI document gives each code its own error schema from here. Which status a code
 * comes with is said by the route that raises it (`template_not_found` is 404 for a URL, 422
 * for a send).
 */

export interface ErrorCodeInfo {
  description: string
  /** Schema of one `details` item; absent: `details` is always empty. */
  detail?: Schema
}

export { FIELD_PROBLEM_CODES }

const integer = (description: string) =>
  v.pipe(v.number(), v.integer(), v.minValue(1), v.description(description))
const text = (description?: string, examples?: string[]) =>
  description ? described(v.string(), description, examples) : v.string()

const sourcePosition = v.object({
  file: text(
    'The file, relative to the templates folder (the template, or a partial or layout it uses).',
    ['order-receipt.liquid'],
  ),
  line: integer('Line in the file, front matter included.'),
  column: integer('Column in the line.'),
  message: text('What is wrong there.'),
})

export const ERROR_CODES = {
  bad_request: { description: 'The request could not be parsed as HTTP.' },
  invalid_json: {
    description:
      'The body is not valid JSON, nests arrays and objects more than 64 levels deep, or holds half of a UTF-16 surrogate pair (`"\\ud800"` alone: not text); the message and details give line, column and position (and `limit` for depth).',
    detail: v.object({
      position: v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description('Offset of the first bad character (UTF-16 code units).'),
      ),
      line: integer('Line of the first bad character.'),
      column: integer('Column of the first bad character.'),
      limit: v.optional(integer('For a body nested too deep: the most levels sendbox takes.')),
    }),
  },
  invalid_slug: {
    description:
      'Not a template slug: letters, digits, "-", "_" and "."; 1 to 128 characters; not "." or "..".',
  },
  invalid_parameter: {
    description: 'A query parameter or header has a value it does not take; details name it.',
    detail: v.object({
      parameter: text("The parameter's name.", ['limit']),
      message: text('What it must be, and what was sent.'),
    }),
  },
  unauthorized: {
    description:
      'No "Authorization: token <API_TOKEN>" header (answered with WWW-Authenticate: Token); on the inspector of a server started with --projects, no token of its projects file (header or the inbox\'s session); on the inspector of a server started with --inspector-password, no Basic credentials with that password (WWW-Authenticate: Basic).',
  },
  admin_token_required: {
    description:
      'With --projects: this changes what every project shares (fixtures, snapshots) and takes an admin token.',
  },
  host_not_allowed: {
    description:
      'The request was addressed (Host) to a name other than localhost, *.localhost, an IP address or one given with --allowed-host: protection against DNS rebinding.',
  },
  cross_origin_forbidden: {
    description:
      'The request came from another website (Origin, Sec-Fetch-Site); only --cors origins may call the emulated API, and no website the inspector.',
  },
  sandbox_token_required: {
    description:
      "The token is not a sandbox token (with --projects: not one of the projects file's tokens).",
  },
  not_found: { description: 'No such route.' },
  template_not_found: {
    description: 'No such template; details suggest the nearest slugs.',
    detail: v.object({
      suggestion: text('A template slug near the one asked for.', ['welcome']),
    }),
  },
  message_not_found: { description: 'No such message (deleted, or dropped by --max-messages).' },
  fixture_not_found: { description: 'The template has no fixture case of that name.' },
  preview_not_found: { description: 'The live preview expired (only the newest 50 are kept).' },
  recipient_not_found: {
    description:
      "A simulated event names an address that is not one of the message's recipients; details list them.",
    detail: v.object({ field: v.literal('recipient'), recipients: v.array(v.string()) }),
  },
  url_not_in_message: {
    description:
      "A simulated click names a url that is none of the message's links; details list their hrefs.",
    detail: v.object({ field: v.literal('url'), links: v.array(v.string()) }),
  },
  webhook_delivery_not_found: {
    description: 'No such webhook delivery (only the newest 1000 attempts are kept).',
  },
  suppression_not_found: { description: 'The address is not on the suppression list.' },
  too_many_faults: {
    description: 'The most faults sendbox keeps armed (100) are armed; disarm some first.',
  },
  fixture_too_large: { description: 'The fixture case would be over 256 KiB on disk.' },
  fixture_outside: {
    description:
      'The case folder leads outside the fixtures folder (a symlink); sendbox writes only inside it.',
  },
  fixture_exists: {
    description: 'A fixture case of that name exists; send "overwrite": true to replace it.',
  },
  snapshot_not_found: {
    description:
      'The template has no such case, and there is no snapshot of it (GET /_sandbox/api/snapshots lists the cases).',
  },
  snapshot_outside: {
    description:
      'A folder of the snapshot folder leads outside it (a symlink); sendbox writes only inside it.',
  },
  image_not_found: {
    description: 'The case has no such screenshot; `sendbox check --visual` makes them.',
  },
  relay_not_configured: {
    description:
      'A release needs an SMTP relay (--relay) and the recipients it may go to (--relay-allow); one is missing.',
  },
  relay_not_allowed: {
    description:
      'A release names an address no --relay-allow pattern allows; details name each one. Nothing was sent.',
    detail: v.object({
      field: v.literal('to'),
      address: text('The address that is not allowed.', ['someone@elsewhere.test']),
    }),
  },
  relay_failed: {
    description:
      'The relay refused the message (its credentials, every recipient), could not be reached, or did not answer in time; details give its reply when it gave one. Never the password.',
    detail: v.object({
      response: text("The relay's reply.", ['535 5.7.8 Authentication credentials invalid']),
    }),
  },
  spam_check_not_configured: {
    description:
      'A spam score needs a SpamAssassin spamd: start sendbox with --spamassassin host:port (SENDBOX_SPAMASSASSIN).',
  },
  spam_check_failed: {
    description:
      'spamd (--spamassassin) could not be reached, did not answer within 10 s, or answered something that is not a spamd report; the message names host:port and why, details say which. Nothing is kept: the next request asks again.',
    detail: v.object({
      spamd: text('spamd as --spamassassin names it, host:port.', ['127.0.0.1:783']),
      reason: v.pipe(
        v.picklist(['refused', 'timeout', 'bad_answer']),
        v.description(
          'refused: nothing answered there; timeout: no answer within 10 s; bad_answer: what came is not a spamd report.',
        ),
      ),
    }),
  },
  wait_timeout: { description: 'No matching message arrived before the timeout.' },
  method_not_allowed: {
    description: 'The route does not take this method; Allow lists those it does.',
  },
  payload_too_large: { description: 'The body is over the limit (--max-body).' },
  unsupported_media_type: {
    description: 'The body is not sent as Content-Type: application/json.',
  },
  validation_failed: {
    description: 'The body has the wrong shape; details list every problem at once.',
    detail: v.object({
      field: text('Path of the field: "to[1]", "match.template"; "" for the body itself.', [
        'to[1]',
      ]),
      code: v.picklist(FIELD_PROBLEM_CODES),
      message: text(),
    }),
  },
  template_invalid: {
    description:
      'The template (or a partial or layout it uses) does not parse; details give file, line, column.',
    detail: sourcePosition,
  },
  missing_variables: {
    description: 'The variables lack some the template needs; details list each one.',
    detail: v.object({
      variable: text('Dotted path of the variable.', ['order.id']),
      message: text(),
    }),
  },
  render_failed: {
    description:
      'Rendering failed (a limit, a bad filter argument); details give file, line, column.',
    detail: sourcePosition,
  },
  fixture_invalid: { description: 'The fixture case is not a JSON object of variables.' },
  simulated_fault: {
    description:
      'A simulated failure of the real service (fault injection); a 429 carries Retry-After.',
  },
  shutting_down: { description: 'The sandbox closed while this request was waiting.' },
  inbox_not_built: {
    description:
      "The inbox page's script or stylesheet is missing from dist/ (an unbuilt checkout); run npm run build.",
  },
  log_write_failed: {
    description:
      'The message log could not be written (a full disk, lost permissions, an I/O error): nothing was stored and nothing acknowledged. Reads keep working; the next write tries again (docs/log-faults.md).',
    detail: v.object({
      file: text('The log file.', ['/repo/.sendbox/messages.jsonl']),
      reason: text('The errno code of the failed write, or `unknown`.', [
        'ENOSPC',
        'EACCES',
        'EIO',
        'EROFS',
      ]),
    }),
  },
  store_unavailable: {
    description:
      'The PostgreSQL store (--store) cannot be reached: nothing was stored or read. Retry-After says when to try again; sendbox reconnects on its own once the database is back (docs/team.md).',
    detail: v.object({
      store: text('The database, as host:port/database (never the credentials).', [
        'db.internal:5432/sendbox',
      ]),
      reason: text("The client's reason.", ['ECONNREFUSED', 'CONNECTION_CLOSED', '57P01']),
    }),
  },
  internal_error: {
    description:
      "An unexpected error (the details are in sendbox's console, never in the response).",
  },
} as const satisfies Record<string, ErrorCodeInfo>

export type ErrorCode = keyof typeof ERROR_CODES

/** A status and the code answered with it. */
export type ErrorRef = readonly [status: number, code: ErrorCode]

/** `validation_failed` → `ValidationFailedError`; `internal_error` → `InternalError`. */
export function errorSchemaName(code: string): string {
  return `${code.replace(/_error$/, '').replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Error`
}

/** The `error` member of a code's answer: `{ code, message, details }`. */
function errorObject(code: ErrorCode) {
  const info: ErrorCodeInfo = ERROR_CODES[code]
  return v.object({
    code: v.literal(code),
    message: text('A sentence a person can act on.'),
    details: info.detail
      ? v.array(info.detail)
      : v.pipe(v.array(v.unknown()), v.maxLength(0), v.description('Always empty for this code.')),
  })
}

const CODES = Object.keys(ERROR_CODES) as ErrorCode[]

/** Each code's `error` member, built once (the document and the soft answers share them). */
export const ERROR_OBJECTS: ReadonlyMap<ErrorCode, ReturnType<typeof errorObject>> = new Map(
  CODES.map((code) => [code, errorObject(code)]),
)

/** Each code's answer, `{ error }`, named `<Code>Error` in the document. */
export const ERROR_ANSWERS: ReadonlyMap<ErrorCode, Schema> = new Map(
  CODES.map((code) => [
    code,
    component(
      errorSchemaName(code),
      v.pipe(
        v.object({ error: ERROR_OBJECTS.get(code)! }),
        v.description(ERROR_CODES[code].description),
      ),
    ),
  ]),
)
