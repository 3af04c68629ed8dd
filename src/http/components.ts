import { MESSAGE_STATUSES } from '../store/index.js'
import { RECIPIENT } from './delivery-components.js'
import type { JsonSchema } from '../lib/schema.js'
import { component } from './openapi.js'

/**
 * The named schemas more than one route folder answers with: messages, warnings, templates,
 * checks. Each mirrors a type of the layer that owns the data (store, templates, checks); the
 * conformance test holds every answer to them with no property left undocumented.
 */

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  description,
  ...extra,
})
const time = (description: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description,
  examples: ['2026-11-21T10:00:00.000Z'],
})
const list = (items: JsonSchema, description: string): JsonSchema => ({
  type: 'array',
  items,
  description,
})

/** A message id: `msg_` and a ULID. */
export const MESSAGE_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/

export const WARNING = component('Warning', {
  type: 'object',
  description: 'A soft problem: the message was sent (or the preview rendered) all the same.',
  required: ['code', 'message'],
  properties: {
    code: str(
      '`unused_variable`: supplied but never used; with --lenient, also `missing_variable` and `unknown_field`.',
      { enum: ['unused_variable', 'missing_variable', 'unknown_field'] },
    ),
    message: str('What is wrong, as a sentence.'),
    variable: str('The variable, for the variable warnings.', { examples: ['coupon'] }),
  },
})

export const ADDRESS = component('Address', {
  type: 'object',
  description: 'A parsed "Display Name <address>".',
  required: ['name', 'address'],
  properties: {
    name: {
      type: ['string', 'null'],
      description: 'The display name, or null for a bare address.',
      examples: ['Ada Lovelace'],
    },
    address: str('The address.', { examples: ['ada@example.com'] }),
  },
})

export const MESSAGE_LINK = component('MessageLink', {
  type: 'object',
  description:
    'A link a reader could follow (CONTRACT §9): an `<a href>` or `<area href>` of the HTML, or a URL only the text part has.',
  required: ['href', 'text'],
  properties: {
    href: str(
      'As a browser reads it: character references decoded, surrounding whitespace trimmed.',
      {
        examples: ['https://acme.test/reset?token=abc&user=ada'],
      },
    ),
    text: {
      type: ['string', 'null'],
      description:
        'The link\'s visible text, whitespace collapsed; an image\'s `alt` when the link holds only an image; `""` when it has none; null for a URL of the text part.',
      examples: ['Reset your password'],
    },
  },
})

const RECORD_PROPERTIES: Record<string, JsonSchema> = {
  id: str('The message id.', {
    pattern: MESSAGE_ID.source,
    examples: ['msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D'],
  }),
  status: str(
    '`sent` until every recipient has settled; then `delivered` if all were, else the first of bounced, complained, suppressed, deferred that a recipient is in (CONTRACT §7).',
    { enum: [...MESSAGE_STATUSES] },
  ),
  recipients: {
    type: 'array',
    items: RECIPIENT,
    description: 'One per `to` entry, in the same order.',
  },
  createdAt: time('When the send was accepted.'),
  project: str('First 8 hex characters of the SHA-256 of the token that sent it.', {
    pattern: '^[0-9a-f]{8}$',
    examples: ['1f2e3d4c'],
  }),
  tokenHint: str('Enough of the token to recognise it, never enough to use it.', {
    examples: ['sandbox_…f3a9'],
  }),
  template: str("The template's slug.", { examples: ['welcome'] }),
  from: ADDRESS,
  to: { type: 'array', items: ADDRESS, minItems: 1, description: 'The recipients.' },
  subject: str('The subject, as sent.'),
  templateVariables: {
    type: 'object',
    additionalProperties: true,
    description: 'The variables it was rendered with; any JSON.',
  },
  html: str('The rendered HTML.'),
  text: str('The plain-text version derived from the HTML.'),
  warnings: list(WARNING, 'Soft problems found when it was sent.'),
  links: list(
    MESSAGE_LINK,
    'Every `<a href>` and `<area href>` of the HTML in document order, duplicates kept; then each http(s) URL of the text part they did not list (`text: null`). A simulated `clicked` names one of their `href`s.',
  ),
  codes: list(
    str('A code, its grouping spaces or hyphens removed.', { examples: ['482913'] }),
    'The one-time codes a reader would type, from the text part, in order, without repeats: 4 to 10 digits (one space or hyphen may group them), or 4 to 10 uppercase letters and digits with at least one of each, alone on a line or after a word such as code, PIN, OTP, passcode, password or verification in the same sentence; never part of a URL, an address, a date, a time, an amount, or an order or invoice number.',
  ),
}

export const MESSAGE_RECORD = component('MessageRecord', {
  type: 'object',
  description: 'A stored message, with the links and codes sendbox read in it.',
  required: Object.keys(RECORD_PROPERTIES),
  properties: RECORD_PROPERTIES,
})

const {
  html: _html,
  text: _text,
  templateVariables: _variables,
  links: _links,
  codes: _codes,
  ...SUMMARY_PROPERTIES
} = RECORD_PROPERTIES

export const MESSAGE_SUMMARY = component('MessageSummary', {
  type: 'object',
  description: 'A stored message without its HTML, text and variables (`?fields=summary`).',
  required: Object.keys(SUMMARY_PROPERTIES),
  properties: SUMMARY_PROPERTIES,
})

export const SOURCE_ERROR = component('SourceError', {
  type: 'object',
  description: 'Where a template does not parse.',
  required: ['file', 'line', 'column', 'message'],
  properties: {
    file: str('The file, relative to the templates folder.', { examples: ['welcome.liquid'] }),
    line: { type: 'integer', minimum: 1, description: 'Line, front matter included.' },
    column: { type: 'integer', minimum: 1 },
    message: str('What is wrong there.'),
  },
})

export const TEMPLATE_SUMMARY_PROPERTIES: Record<string, JsonSchema> = {
  slug: str('The slug: the file name without its extension.', { examples: ['welcome'] }),
  description: { type: ['string', 'null'], description: 'From front matter.' },
  variables: list({ type: 'string' }, 'Top-level names the template expects, sorted.'),
  updatedAt: time('Last change of the file, or of a partial or layout it uses.'),
  error: { ...SOURCE_ERROR, description: 'Present when the file does not parse.' },
}

export const TEMPLATE_SUMMARY = component('TemplateSummary', {
  type: 'object',
  description: 'A template, without its source.',
  required: ['slug', 'description', 'variables', 'updatedAt'],
  properties: TEMPLATE_SUMMARY_PROPERTIES,
})

export const FINDING = component('Finding', {
  type: 'object',
  description: 'One finding of the email checks.',
  required: ['check', 'code', 'severity', 'message', 'fix', 'line'],
  properties: {
    check: str('Which check found it.', { enum: ['size', 'clients', 'images', 'links', 'text'] }),
    code: str('Stable, snake_case.', {
      examples: ['gmail_clipping', 'image_missing_alt', 'localhost_link'],
    }),
    severity: str('How bad.', { enum: ['error', 'warning', 'info'] }),
    message: str('What is wrong.'),
    fix: str('How to fix it.'),
    line: {
      type: ['integer', 'null'],
      minimum: 1,
      description: 'Line in the rendered HTML, when there is one.',
    },
  },
})

export const EMAIL_CHECKS = component('EmailChecks', {
  type: 'object',
  description: 'Checks of a rendered email: size, client support, images, links, plain text.',
  required: ['htmlBytes', 'findings', 'clients', 'counts'],
  properties: {
    htmlBytes: {
      type: 'integer',
      minimum: 0,
      description: 'Size of the HTML in bytes (Gmail clips past 102 KB).',
    },
    findings: list(FINDING, 'Errors first, then warnings, then notes.'),
    clients: list(
      {
        type: 'object',
        required: ['client', 'name', 'supported', 'used', 'score', 'unsupported'],
        properties: {
          client: str("caniemail's client id.", { examples: ['gmail.desktop-webmail'] }),
          name: str("The client's name, as people say it.", {
            examples: ['Gmail (desktop webmail)'],
          }),
          supported: {
            type: 'integer',
            minimum: 0,
            description: 'Features used that the client supports.',
          },
          used: {
            type: 'integer',
            minimum: 0,
            description: 'HTML and CSS features the email uses.',
          },
          score: { type: 'number', minimum: 0, maximum: 100 },
          unsupported: list({ type: 'string' }, 'Features the client lacks.'),
        },
      },
      'Support of the features this email uses, per mail client.',
    ),
    counts: {
      type: 'object',
      required: ['error', 'warning', 'info'],
      properties: {
        error: { type: 'integer', minimum: 0 },
        warning: { type: 'integer', minimum: 0 },
        info: { type: 'integer', minimum: 0 },
      },
      description: 'Findings by severity.',
    },
  },
})
