import addresses from 'email-addresses'
import type { Address } from '../store/types.js'

// The common forms, in a subset of RFC 5322 that the full parser always accepts identically:
// `Plain Name <local@domain>` and `local@domain` with dot-atoms. Anything else takes the
// full parser. (A property test holds the two to the same answers.)
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const DOT_ATOM = `${ATEXT}(?:\\.${ATEXT})*`
const DOMAIN = '[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*'
const SIMPLE = new RegExp(`^(?:([A-Za-z0-9]+(?: [A-Za-z0-9]+)*) <(${DOT_ATOM}@${DOMAIN})>|(${DOT_ATOM}@${DOMAIN}))$`)

/** `Display Name <sender@example.com>` or a bare address → its parts, or null (RFC 5322, UTF-8 allowed). */
export function parseAddress(input: string): Address | null {
  const simple = SIMPLE.exec(input.trim())
  if (simple) return simple[3] ? { name: null, address: simple[3] } : { name: simple[1]!, address: simple[2]! }
  return parseAddressFully(input)
}

/** The full RFC 5322 (with RFC 6532 UTF-8) parse, via email-addresses. */
export function parseAddressFully(input: string): Address | null {
  if (/[\r\n]/.test(input)) return null
  const parsed = addresses.parseOneAddress({ input: input.trim(), rfc6532: true })
  if (!parsed || parsed.type !== 'mailbox') return null
  const mailbox = parsed as { name: string | null; address: string }
  if (!/^[^@\s]+@[^@\s]+$/.test(mailbox.address)) return null
  return { name: mailbox.name || null, address: mailbox.address }
}
