import * as v from 'valibot'
import { component, described, type Schema } from '../lib/schema.js'
import { MESSAGE_STATUSES, type Release } from '../store/index.js'
import { RECIPIENT } from './delivery-components.js'

/**
 * The named answers more than one route folder gives: messages, warnings, templates, checks.
 * Each is the schema of a type of the layer that owns the data (store, templates, checks): a
 * handler that returns that type compiles only while the two agree, and the conformance test
 * holds every answer to them with no property left undocumented.
 */

export const str = (description: string, examples?: string[]) =>
  described(v.string(), description, examples)
export const time = (description: string) =>
  described(v.pipe(v.string(), v.isoTimestamp()), description, ['2026-11-21T10:00:00.000Z'])
const whole = () => v.pipe(v.number(), v.integer(), v.minValue(0))
export const count = (description?: string) =>
  description ? described(whole(), description) : whole()
const positive = () => v.pipe(v.number(), v.integer(), v.minValue(1))
export const list = <S extends v.GenericSchema>(item: S, description: string) =>
  v.pipe(v.array(item), v.description(description))
/** Free JSON: an object whose values are any JSON. */
export const freeObject = (description: string) =>
  v.pipe(v.record(v.string(), v.unknown()), v.description(description))

/** A message id: `msg_` and a ULID. */
export const MESSAGE_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/

export const WARNING = component(
  'Warning',
  v.pipe(
    v.object({
      code: described(
        v.picklist(['unused_variable', 'missing_variable', 'unknown_field']),
        '`unused_variable`: supplied but never used; with --lenient, also `missing_variable` and `unknown_field`.',
      ),
      message: str('What is wrong, as a sentence.'),
      variable: v.optional(str('The variable, for the variable warnings.', ['coupon'])),
    }),
    v.description('A soft problem: the message was sent (or the preview rendered) all the same.'),
  ),
)

export const ADDRESS = component(
  'Address',
  v.pipe(
    v.object({
      name: described(v.nullable(v.string()), 'The display name, or null for a bare address.', [
        'Ada Lovelace',
      ]),
      address: str('The address.', ['ada@example.com']),
    }),
    v.description('A parsed "Display Name <address>".'),
  ),
)

export const MESSAGE_LINK = component(
  'MessageLink',
  v.pipe(
    v.object({
      href: str(
        'As a browser reads it: character references decoded, surrounding whitespace trimmed.',
        ['https://acme.test/reset?token=abc&user=ada'],
      ),
      text: described(
        v.nullable(v.string()),
        'The link\'s visible text, whitespace collapsed; an image\'s `alt` when the link holds only an image; `""` when it has none; null for a URL of the text part.',
        ['Reset your password'],
      ),
    }),
    v.description(
      'A link a reader could follow (docs/testing.md#what-a-record-carries): an `<a href>` or `<area href>` of the HTML, or a URL only the text part has.',
    ),
  ),
)

/** Typed, not inferred: declaration files name it rather than spell out its schema in every operation. */
export const RELEASE: Schema<Release> = component(
  'Release',
  v.pipe(
    v.object({
      to: v.pipe(v.array(v.string()), v.description('The addresses it was sent to, as asked.')),
      at: time('When the relay answered.'),
      rejected: v.pipe(
        v.array(v.string()),
        v.description('Of `to`, those the relay refused (it accepted the others).'),
      ),
      response: str("The relay's last reply.", ['250 2.0.0 Ok: queued as 4F2A1']),
    }),
    v.description(
      'The message sent on to a real mailbox through the relay (POST /_sandbox/api/messages/{id}/release).',
    ),
  ),
)

const RELEASES: v.OptionalSchema<Schema<Release[]>, undefined> = v.optional(
  list(
    RELEASE,
    'Each time it was released to a real mailbox, oldest first; absent until the first.',
  ),
)

/** What a summary has: a record without its HTML, text, variables, links and codes. */
const SUMMARY_ENTRIES = {
  id: described(v.pipe(v.string(), v.regex(MESSAGE_ID)), 'The message id.', [
    'msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D',
  ]),
  status: described(
    v.picklist(MESSAGE_STATUSES),
    '`sent` until every recipient has settled; then `delivered` if all were, else the first of bounced, complained, suppressed, deferred that a recipient is in (docs/delivery.md).',
  ),
  recipients: list(RECIPIENT, 'One per `to` entry, in the same order.'),
  createdAt: time('When the send was accepted.'),
  project: described(
    v.pipe(v.string(), v.regex(/^[0-9a-f]{8}$/)),
    'First 8 hex characters of the SHA-256 of the token that sent it.',
    ['1f2e3d4c'],
  ),
  tokenHint: str('Enough of the token to recognise it, never enough to use it.', ['sandbox_…f3a9']),
  template: str("The template's slug.", ['welcome']),
  from: ADDRESS,
  to: v.pipe(v.array(ADDRESS), v.minLength(1), v.description('The recipients.')),
  subject: str('The subject, as sent.'),
  warnings: list(WARNING, 'Soft problems found when it was sent.'),
  releases: RELEASES,
}

export const MESSAGE_RECORD = component(
  'MessageRecord',
  v.pipe(
    v.object({
      ...SUMMARY_ENTRIES,
      templateVariables: freeObject('The variables it was rendered with; any JSON.'),
      html: str('The rendered HTML.'),
      text: str('The plain-text version derived from the HTML.'),
      links: list(
        MESSAGE_LINK,
        'Every `<a href>` and `<area href>` of the HTML in document order, duplicates kept; then each http(s) URL of the text part they did not list (`text: null`). A simulated `clicked` names one of their `href`s.',
      ),
      codes: list(
        str('A code, its grouping spaces or hyphens removed.', ['482913']),
        'The one-time codes a reader would type, from the text part, in order, without repeats: 4 to 10 digits (one space or hyphen may group them), or 4 to 10 uppercase letters and digits with at least one of each, alone on a line or after a word such as code, PIN, OTP, passcode, password or verification in the same sentence; never part of a URL, an address, a date, a time, an amount, or an order or invoice number.',
      ),
    }),
    v.description('A stored message, with the links and codes sendbox read in it.'),
  ),
)

export const MESSAGE_SUMMARY = component(
  'MessageSummary',
  v.pipe(
    v.object(SUMMARY_ENTRIES),
    v.description('A stored message without its HTML, text and variables (`?fields=summary`).'),
  ),
)

export const SOURCE_ERROR = component(
  'SourceError',
  v.pipe(
    v.object({
      file: str('The file, relative to the templates folder.', ['welcome.liquid']),
      line: described(positive(), 'Line, front matter included.'),
      column: positive(),
      message: str('What is wrong there.'),
    }),
    v.description('Where a template does not parse.'),
  ),
)

export const TEMPLATE_SUMMARY_ENTRIES = {
  slug: str('The slug: the file name without its extension.', ['welcome']),
  description: described(v.nullable(v.string()), 'From front matter.'),
  variables: list(v.string(), 'Top-level names the template expects, sorted.'),
  updatedAt: time('Last change of the file, or of a partial or layout it uses.'),
  /** Present when the file does not parse. */
  error: v.optional(SOURCE_ERROR),
}

export const TEMPLATE_SUMMARY = component(
  'TemplateSummary',
  v.pipe(v.object(TEMPLATE_SUMMARY_ENTRIES), v.description('A template, without its source.')),
)

export const FINDING = component(
  'Finding',
  v.pipe(
    v.object({
      check: described(
        v.picklist(['size', 'clients', 'images', 'links', 'text', 'accessibility']),
        'Which check found it.',
      ),
      code: str('Stable, snake_case.', ['gmail_clipping', 'img_missing_alt', 'low_contrast']),
      severity: described(v.picklist(['error', 'warning', 'info']), 'How bad.'),
      message: str('What is wrong.'),
      fix: str('How to fix it.'),
      line: described(v.nullable(positive()), 'Line in the rendered HTML, when there is one.'),
      column: described(
        v.nullable(positive()),
        "Column of the element's start tag on that line, when the finding is about one.",
      ),
    }),
    v.description('One finding of the email checks.'),
  ),
)

export const EMAIL_CHECKS = component(
  'EmailChecks',
  v.pipe(
    v.object({
      htmlBytes: count('Size of the HTML in bytes (Gmail clips past 102 KB).'),
      findings: list(FINDING, 'Errors first, then warnings, then notes.'),
      clients: list(
        v.object({
          client: str("caniemail's client id.", ['gmail.desktop-webmail']),
          name: str("The client's name, as people say it.", ['Gmail (desktop webmail)']),
          supported: count('Features used that the client supports.'),
          used: count('HTML and CSS features the email uses.'),
          score: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
          unsupported: list(v.string(), 'Features the client lacks.'),
        }),
        'Support of the features this email uses, per mail client.',
      ),
      counts: v.pipe(
        v.object({ error: count(), warning: count(), info: count() }),
        v.description('Findings by severity.'),
      ),
    }),
    v.description(
      'Checks of a rendered email: size, client support, images, links, plain text, accessibility.',
    ),
  ),
)
