import * as v from 'valibot'
import { typeName } from '../lib/json.js'
import {
  convert,
  described,
  FIELD,
  jsonObject,
  looseObject,
  object,
  optional,
  rule,
  shown,
} from '../lib/schema.js'
import { SLUG_HINT, SLUG_PATTERN } from '../templates/index.js'
import { ADDRESS_MAX_LENGTH, ADDRESS_PATTERN, parseAddress } from './address.js'

/**
 * The one definition of the emulated API's request (docs/api.md#the-api): step 4 of the send checks,
 * the handler's input type, and the document's `SendRequest` all come from SEND_ENTRIES, so
 * every string the document's patterns and limits allow is accepted by the validation, and
 * nothing else. What each template needs of `templateVariables` the document says per template
 * (./send-document.ts); the server checks it at step 6 (`missing_variables`).
 */

export const MAX_RECIPIENTS = 50

const ADDRESS_HINT = '"Ada Lovelace <ada@example.com>" or "ada@example.com"'
const notA = (expected: string) => (issue: v.BaseIssue<unknown>) =>
  `${FIELD} must be ${expected}, not ${typeName(issue.input)}.`

/** One `Display Name <address>` or bare address, read into its parts (parsed once). */
const ADDRESS = v.pipe(
  v.string(notA('a string')),
  v.maxLength(
    ADDRESS_MAX_LENGTH,
    (issue) => `${FIELD} has ${issue.input.length} characters; the limit is ${ADDRESS_MAX_LENGTH}.`,
  ),
  // The document's pattern: parseAddress holds every value to it (and to the full parser).
  v.metadata({ pattern: ADDRESS_PATTERN.source }),
  convert(
    'invalid_address',
    parseAddress,
    (raw: string) => `${FIELD} must be an address like ${ADDRESS_HINT}; got ${shown(raw, 998)}.`,
  ),
)

/** The fields every send has, in the order they are checked and reported. */
export const SEND_ENTRIES = {
  template: described(
    v.pipe(
      v.string(notA('a string')),
      rule(
        'required',
        (slug: string) => slug.trim() !== '',
        `${FIELD} must name a template slug, e.g. "welcome".`,
      ),
      v.regex(SLUG_PATTERN, (issue) => `${FIELD} must be ${SLUG_HINT}; got ${shown(issue.input)}.`),
    ),
    'Slug of an existing template: the file name of templates/<slug>.liquid (or .html) without the extension.',
    ['welcome'],
  ),
  from: described(
    ADDRESS,
    'The sender: "Display Name <sender@example.com>", or a bare address (RFC 5322, without comments; UTF-8 allowed).',
    ['Acme <hello@acme.test>'],
  ),
  to: described(
    v.union(
      [
        v.pipe(
          v.array(ADDRESS, notA('a string or an array of strings')),
          v.minLength(1, `${FIELD} needs at least one recipient.`),
          v.maxLength(
            MAX_RECIPIENTS,
            (issue) =>
              `${FIELD} has ${issue.input.length} recipients; the limit is ${MAX_RECIPIENTS}.`,
          ),
        ),
        ADDRESS,
      ],
      notA('a string or an array of strings'),
    ),
    'One recipient, or an array of them, each like "from".',
    ['Ada Lovelace <ada@example.com>'],
  ),
  subject: described(
    v.pipe(
      v.string(notA('a string')),
      v.minLength(1, `${FIELD} must not be empty.`),
      v.maxLength(
        998,
        (issue) => `${FIELD} has ${issue.input.length} characters; the limit is 998.`,
      ),
      rule(
        'invalid_characters',
        (line: string) => !/[\r\n]/.test(line),
        `${FIELD} must be one line: no CR or LF characters.`,
      ),
      v.metadata({ pattern: '^[^\\r\\n]*$' }),
    ),
    'The subject, used as given (not rendered): one line, no CR or LF.',
    ['Welcome to Acme'],
  ),
  templateVariables: optional(
    described(
      jsonObject({ expected: 'an object of variable names to values' }),
      "Values for the template's variables; any JSON. Defaults to {}.",
      [{ name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' }],
    ),
    {},
  ),
}

const SEND_OPTIONS = {
  requiredHints: { to: `: one address, or an array of 1 to ${MAX_RECIPIENTS}` },
  description:
    'A message to send. Unknown top-level fields are 422 validation_failed (with a "did you mean" hint), unless the server runs with --lenient.',
}

/** POST /messages: the body, every problem listed at once, unknown fields refused. */
export const SEND_REQUEST = object(SEND_ENTRIES, SEND_OPTIONS)

/** The same under --lenient: unknown top-level fields pass (the send warns of each). */
export const LENIENT_SEND_REQUEST = looseObject(SEND_ENTRIES, SEND_OPTIONS)

export type SendRequest = v.InferOutput<typeof SEND_REQUEST>

/** The fields of a body that no send has: what --lenient lets through, with a warning each. */
export function unknownFields(body: object): string[] {
  return Object.keys(body).filter((key) => !Object.hasOwn(SEND_ENTRIES, key))
}
