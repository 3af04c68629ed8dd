import { domainToASCII } from 'node:url'
import type { Address, MessageRecord } from '../store/types.js'

/**
 * A stored message as an RFC 5322 message (`GET /_sandbox/api/messages/:id/eml`), written here
 * rather than by a general mail composer so that every byte is accounted for:
 *
 * - CRLF is the only line break, in the headers and in both parts (RFC 5322 §2.3; a text part's
 *   canonical form is CRLF too, RFC 2046 §4.1.1), and bodies are quoted-printable, so no line
 *   passes 76 octets whatever the template produced.
 * - A subject or display name is sent as it is only when a reader cannot take it for anything
 *   else: ASCII words with no `=?` in them. Otherwise it goes out as RFC 2047 encoded words,
 *   which a reader decodes back to exactly the stored text (a literal `=?UTF-8?B?SGk=?=` in a
 *   subject included). Header lines fold at 78 characters.
 * - The boundary contains `=_`, which quoted-printable output can never contain, so no template
 *   can end a part early.
 */

const CRLF = '\r\n'
const MAX_HEADER_LINE = 78

/** Characters RFC 2047 §5(3) lets stand for themselves in a Q-encoded word, wherever it is. */
const Q_SAFE = /[A-Za-z0-9!*+\-/]/
/**
 * Encoded words of at most 60 characters (RFC 2047 §2 allows 75): one fits on a header's first
 * line after `Subject: `, since a fold before the first word reads back as a leading space.
 */
const Q_PAYLOAD = 60 - '=?UTF-8?Q??='.length

/** One RFC 2047 Q-encoded word per slice of the text, never splitting a character. */
function encodedWords(text: string): string[] {
  const words: string[] = []
  let current = ''
  for (const char of text) {
    const encoded =
      char === ' '
        ? '_'
        : Q_SAFE.test(char)
          ? char
          : [...Buffer.from(char, 'utf8')]
              .map((byte) => `=${byte.toString(16).toUpperCase().padStart(2, '0')}`)
              .join('')
    if (current.length + encoded.length > Q_PAYLOAD) {
      words.push(`=?UTF-8?Q?${current}?=`)
      current = ''
    }
    current += encoded
  }
  words.push(`=?UTF-8?Q?${current}?=`)
  return words
}

/** Printable ASCII words, one space apart, none too long to fold and none like an encoded word. */
const PLAIN_TEXT = /^[\x21-\x7e]{1,60}(?: [\x21-\x7e]{1,60})*$/
/** RFC 5322 atoms, one space apart: a display name that needs no quoting. */
const PLAIN_PHRASE =
  /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]{1,60}(?: [A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]{1,60})*$/

/** An unstructured value (the subject) as foldable tokens. */
function textTokens(text: string): string[] {
  if (PLAIN_TEXT.test(text) && !text.includes('=?')) return text.split(' ')
  return encodedWords(text)
}

/** A display name as foldable tokens: atoms, one quoted string, or encoded words. */
function phraseTokens(name: string): string[] {
  if (name.includes('=?')) return encodedWords(name)
  if (PLAIN_PHRASE.test(name)) return name.split(' ')
  if (/^[\x20-\x7e]{1,60}$/.test(name)) return [`"${name.replace(/["\\]/g, '\\$&')}"`]
  return encodedWords(name)
}

/** `local@domain` with an international domain in its ASCII (IDNA) form. */
function addrSpec(address: string): string {
  const at = address.lastIndexOf('@')
  const domain = address.slice(at + 1)
  const ascii = /^[\x21-\x7e]*$/.test(domain) ? domain : domainToASCII(domain) || domain
  return `${address.slice(0, at)}@${ascii}`
}

function mailboxTokens(mailbox: Address): string[] {
  if (!mailbox.name) return [addrSpec(mailbox.address)]
  return [...phraseTokens(mailbox.name), `<${addrSpec(mailbox.address)}>`]
}

/** `Name: tokens…`, folded before a token (at the space that precedes it) to stay within 78. */
function header(name: string, tokens: string[]): string {
  let out = `${name}:`
  let line = out.length
  for (const token of tokens) {
    if (line + 1 + token.length > MAX_HEADER_LINE && line > name.length + 1) {
      out += `${CRLF} ${token}`
      line = 1 + token.length
    } else {
      out += ` ${token}`
      line += 1 + token.length
    }
  }
  return out
}

/** Mailboxes, comma-separated, each comma kept on the token before it. */
function addressListTokens(list: Address[]): string[] {
  return list.flatMap((mailbox, i) => {
    const tokens = mailboxTokens(mailbox)
    if (i < list.length - 1) tokens[tokens.length - 1] += ','
    return tokens
  })
}

/** RFC 5322 §3.3 date-time, in UTC. */
function rfc5322Date(iso: string): string {
  return new Date(iso).toUTCString().replace(/GMT$/, '+0000')
}

const hex = (byte: number) => `=${byte.toString(16).toUpperCase().padStart(2, '0')}`

/**
 * Quoted-printable (RFC 2045 §6.7) of a text in its canonical form: every line break CRLF,
 * encoded lines at most 76 characters, trailing spaces and `From ` at a line start encoded.
 */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const bytes = Buffer.from(line, 'utf8')
      const chunks: string[] = []
      bytes.forEach((byte, i) => {
        const last = i === bytes.length - 1
        const plain =
          (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last)
        // "From " at the start of a line is mangled by mbox writers; an encoded F survives.
        const fromLine = i === 0 && byte === 70 && line.startsWith('From ')
        chunks.push(plain && !fromLine ? String.fromCharCode(byte) : hex(byte))
      })
      let out = ''
      let width = 0
      for (const chunk of chunks) {
        if (width + chunk.length > 75) {
          out += `=${CRLF}`
          width = 0
        }
        out += chunk
        width += chunk.length
      }
      return out
    })
    .join(CRLF)
}

function textPart(type: string, content: string): string {
  return [
    `Content-Type: ${type}; charset=utf-8`,
    'Content-Transfer-Encoding: quoted-printable',
    '',
    quotedPrintable(content),
  ].join(CRLF)
}

/**
 * The message as RFC 5322 bytes: multipart/alternative with the text and the HTML.
 *
 * @example
 * const eml = toEml(record)
 * eml.toString('latin1').includes('\r\n\r\n') // true: headers, a blank line, the body
 */
export function toEml(
  record: Pick<
    MessageRecord,
    'id' | 'from' | 'to' | 'subject' | 'createdAt' | 'template' | 'project' | 'text' | 'html'
  >,
): Buffer<ArrayBuffer> {
  const boundary = `=_sendbox_${record.id}`
  const lines = [
    header('From', mailboxTokens(record.from)),
    header('To', addressListTokens(record.to)),
    header('Subject', textTokens(record.subject)),
    header('Date', [rfc5322Date(record.createdAt)]),
    header('Message-ID', [`<${record.id}@sendbox.local>`]),
    header('X-Sendbox-Template', [record.template]),
    header('X-Sendbox-Project', [record.project]),
    'MIME-Version: 1.0',
    header('Content-Type', ['multipart/alternative;', `boundary="${boundary}"`]),
    '',
    `--${boundary}`,
    textPart('text/plain', record.text),
    `--${boundary}`,
    textPart('text/html', record.html),
    `--${boundary}--`,
    '',
  ]
  return Buffer.from(lines.join(CRLF), 'utf8')
}
