import addresses from 'email-addresses'
import type { Address } from '../store/types.js'

/** `Display Name <sender@example.com>` or a bare address → its parts, or null (RFC 5322, UTF-8 allowed). */
export function parseAddress(input: string): Address | null {
  if (/[\r\n]/.test(input)) return null
  const parsed = addresses.parseOneAddress({ input: input.trim(), rfc6532: true })
  if (!parsed || parsed.type !== 'mailbox') return null
  const mailbox = parsed as { name: string | null; address: string }
  if (!/^[^@\s]+@[^@\s]+$/.test(mailbox.address)) return null
  return { name: mailbox.name || null, address: mailbox.address }
}
