import { createRequire } from 'node:module'
import type { Address } from '../store/types.js'

/**
 * The address forms a send accepts, as one regular expression that is also the OpenAPI
 * document's `pattern` for `from` and `to` (so it is written for both JavaScript's and Python's
 * regex engines: no lookarounds, `[^\x00-\x7F]` for any non-ASCII character).
 *
 * It is the RFC 5322 mailbox without comments or folding: an optional display name (atoms, which
 * may hold dots after the first character, and quoted strings, one or more spaces or tabs apart)
 * before `<addr-spec>`, or a bare addr-spec; a local part that is a dot-atom or a quoted string
 * with no space or `@`; a domain that is a dot-atom or a domain literal; UTF-8 allowed in atoms
 * and quoted strings (RFC 6532). Every string it matches is accepted by the full parser (a
 * property test samples it), and nothing else is accepted, so the document and the validation
 * say the same thing.
 */
const U = '[^\\x00-\\x7F]'
const ACHAR = `(?:[A-Za-z0-9!#$%&'*+/=?^_\`{|}~-]|${U})`
const DOT_ATOM = `${ACHAR}+(?:\\.${ACHAR}+)*`
const QUOTED = `"(?:[ !#-\\[\\]-~]|${U}|\\\\[ -~])*"`
const QUOTED_LOCAL = `"(?:[!#-?A-\\[\\]-~]|${U}|\\\\[!-?A-~])+"`
const DOMAIN_LITERAL = `\\[[!-?A-Z^-~]*\\]`
const ADDR_SPEC = `(?:${DOT_ATOM}|${QUOTED_LOCAL})@(?:${DOT_ATOM}|${DOMAIN_LITERAL})`
const PHRASE = `(?:${ACHAR}(?:${ACHAR}|\\.)*|${QUOTED})(?:[ \\t]+(?:(?:${ACHAR}|\\.)+|${QUOTED}))*`
export const ADDRESS_PATTERN = new RegExp(
  `^[ \\t]*(?:(?:${PHRASE}[ \\t]*)?<${ADDR_SPEC}>|${ADDR_SPEC})[ \\t]*$`,
  'u',
)

/** At most one header line (RFC 5322 §2.1.1), which also bounds the pattern's work. */
export const ADDRESS_MAX_LENGTH = 998

// The common forms, in a subset of the pattern that the full parser always reads identically:
// `Plain Name <local@domain>` and `local@domain` with dot-atoms. Anything else takes the
// full parser. (A property test holds the two to the same answers.)
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const SIMPLE_DOT_ATOM = `${ATEXT}(?:\\.${ATEXT})*`
const DOMAIN = '[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*'
const SIMPLE = new RegExp(
  `^(?:([A-Za-z0-9]+(?: [A-Za-z0-9]+)*) <(${SIMPLE_DOT_ATOM}@${DOMAIN})>|(${SIMPLE_DOT_ATOM}@${DOMAIN}))$`,
)

/**
 * `Display Name <sender@example.com>` or a bare address → its parts, or null when it is not one
 * of the forms ADDRESS_PATTERN describes.
 *
 * @example
 * parseAddress('Ada Lovelace <ada@example.com>') // { name: 'Ada Lovelace', address: 'ada@example.com' }
 * parseAddress('ada@example.com (Ada)')          // null: comments are not among the forms
 */
export function parseAddress(input: string): Address | null {
  if (input.length > ADDRESS_MAX_LENGTH || !ADDRESS_PATTERN.test(input)) return null
  const simple = SIMPLE.exec(input.trim())
  if (simple)
    return simple[3]
      ? { name: null, address: simple[3] }
      : { name: simple[1]!, address: simple[2]! }
  return parseAddressFully(input)
}

// The fast path takes the usual forms; the full parser loads (CommonJS, synchronously) on the
// first address it does not take, not on every start.
const require = createRequire(import.meta.url)
let addresses: typeof import('email-addresses') | undefined

/** The full RFC 5322 (with RFC 6532 UTF-8) parse, via email-addresses. */
export function parseAddressFully(input: string): Address | null {
  if (/[\r\n]/.test(input)) return null
  addresses ??= require('email-addresses') as typeof import('email-addresses')
  const parsed = addresses.parseOneAddress({ input: input.trim(), rfc6532: true })
  if (parsed?.type !== 'mailbox') return null
  const mailbox = parsed as { name: string | null; address: string }
  if (!/^[^@\s]+@[^@\s]+$/.test(mailbox.address)) return null
  return { name: mailbox.name || null, address: mailbox.address }
}
