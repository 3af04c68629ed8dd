/**
 * The SPAMC/SPAMD protocol (SpamAssassin's spamd, protocol 1.5), as bytes: what a client sends
 * and what spamd's `REPORT` answer says. No I/O here (`./spamd.ts` holds the socket), so the
 * framing is tested byte for byte against what Debian's `spamc` sends.
 *
 * The npm clients were looked at first: `spamc` (0.0.5) and `node-spamd` (0.0.4) are callback
 * code from 2012–2013 with no release since; `spamc` adds a CRLF the Content-length then counts,
 * decodes the answer chunk by chunk (a UTF-8 character split across two reads is garbled), times
 * out only an idle socket, and keeps the first word of each rule's kind. The protocol is small.
 */

/** What spamd said of one message: `Spam: True ; 9.9 / 5.0` and the rules of its report. */
export interface SpamReport {
  /** SpamAssassin's score: the sum of the rules' points. */
  score: number
  /** The score from which spamd calls a message spam (`required_score`, 5 by default). */
  threshold: number
  isSpam: boolean
  /** The rules that fired, highest score first (then by name). */
  rules: SpamRule[]
}

export interface SpamRule {
  /** SpamAssassin's rule name: `HTML_IMAGE_ONLY_16`. */
  name: string
  /** Its points as the report shows them (one decimal). */
  score: number
  /** The rule's description in the report: `BODY: HTML: images with 1200-1600 bytes of words`. */
  description: string
}

/**
 * Who the request says it is for (spamc's `-u`). spamd started with `-x` (no user
 * configuration) reads nobody's preferences; the name shows in spamd's log beside each check.
 */
export const SPAMC_USER = 'sendbox'

const CRLF = '\r\n'

/**
 * The bytes of a request, as `spamc -u sendbox` frames them: `REPORT SPAMC/1.5`, `User`,
 * `Content-length` (of the message's bytes, as they are), a blank line, the message.
 *
 * @example
 * spamdRequest('PING').toString() // 'PING SPAMC/1.5\r\n\r\n'
 * spamdRequest('REPORT', Buffer.from('Subject: hi\r\n\r\nhi\r\n')).toString()
 * // 'REPORT SPAMC/1.5\r\nUser: sendbox\r\nContent-length: 19\r\n\r\nSubject: hi\r\n\r\nhi\r\n'
 */
export function spamdRequest(command: 'PING' | 'REPORT', message?: Uint8Array): Buffer {
  if (command === 'PING' || !message) return Buffer.from(`${command} SPAMC/1.5${CRLF}${CRLF}`)
  const head = [
    `${command} SPAMC/1.5`,
    `User: ${SPAMC_USER}`,
    `Content-length: ${message.byteLength}`,
  ]
  return Buffer.concat([Buffer.from(`${head.join(CRLF)}${CRLF}${CRLF}`, 'latin1'), message])
}

/** Why a request failed: nothing listens there, no answer in time, or an answer that is not spamd's. */
export type SpamdFailureReason = 'refused' | 'timeout' | 'bad_answer'

/** spamd could not be reached, did not answer in time, or answered something else. */
export class SpamdError extends Error {
  override name = 'SpamdError'
  constructor(
    readonly reason: SpamdFailureReason,
    /** `host:port`, as the message names it. */
    readonly address: string,
    message: string,
  ) {
    super(message)
  }
}

/** An answer that is not spamd's, or spamd saying it could not check: why, in a few words. */
export class SpamdAnswerError extends Error {
  override name = 'SpamdAnswerError'
}

const STATUS = /^SPAMD\/\d+\.\d+ (\d+) ?(.*)$/
const SPAM_HEADER = /^(True|False|Yes|No) ; (-?\d+(?:\.\d+)?) \/ (-?\d+(?:\.\d+)?)$/i

/** A quoted start of what came, for a message: at most 60 characters, one line. */
const quoted = (text: string) => JSON.stringify(text.slice(0, 60))

/**
 * spamd's answer to `REPORT`, whole (spamd closes the connection after it): the status line,
 * the `Spam` header and the report's table of rules. Throws `SpamdAnswerError` for anything else.
 *
 * @example
 * parseSpamdReport(Buffer.from('SPAMD/1.1 0 EX_OK\r\nSpam: False ; 0.6 / 5.0\r\n\r\n' +
 *   ' pts rule name              description\n---- ---------------------- ----\n' +
 *   ' 0.6 MISSING_MID            Missing Message-Id: header\n\n'))
 * // { score: 0.6, threshold: 5, isSpam: false, rules: [{ name: 'MISSING_MID', score: 0.6, description: 'Missing Message-Id: header' }] }
 */
export function parseSpamdReport(answer: Uint8Array): SpamReport {
  const text = Buffer.from(answer).toString('utf8')
  const end = text.indexOf(`${CRLF}${CRLF}`)
  if (end < 0) throw new SpamdAnswerError(`the answer is not spamd's: ${quoted(text)}`)
  const [status = '', ...headers] = text.slice(0, end).split(CRLF)
  const code = STATUS.exec(status)
  if (!code) throw new SpamdAnswerError(`the answer is not spamd's: ${quoted(status)}`)
  if (code[1] !== '0') throw new SpamdAnswerError(`spamd could not check it: ${quoted(status)}`)
  const fields = new Map(
    headers.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const
    }),
  )
  const body = text.slice(end + 4)
  const length = fields.get('content-length')
  if (length !== undefined && Number(length) !== Buffer.byteLength(body))
    throw new SpamdAnswerError(
      `the answer was cut: Content-length ${length}, ${Buffer.byteLength(body)} bytes came`,
    )
  const spam = SPAM_HEADER.exec(fields.get('spam') ?? '')
  if (!spam) throw new SpamdAnswerError('the answer has no "Spam: … ; score / threshold" header')
  const rules = reportRules(body).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
  const isSpam = /^(true|yes)$/i.test(spam[1]!)
  return { score: Number(spam[2]), threshold: Number(spam[3]), isSpam, rules }
}

/** ` 1.1 HTML_IMAGE_ONLY_16     BODY: HTML: images with 1200-1600 bytes of` */
const RULE_LINE = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Za-z0-9_]+)\s+(.*)$/

/**
 * The table of SpamAssassin's default report (`_SUMMARY_`): after the `---- ----…` rule, one
 * line per rule; a long description goes on over indented lines, and SpamAssassin 4 adds
 * indented `[URIs: …]`-style details, which are left out. A blank line ends it.
 */
function reportRules(body: string): SpamRule[] {
  const lines = body.split(/\r?\n/)
  const start = lines.findIndex((line) => /^-{4} -{10,} -{10,}/.test(line))
  const rules: SpamRule[] = []
  if (start < 0) return rules
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break
    // A rule's line starts within its 4-wide points column; what goes on is indented further.
    const rule = /^\s{8,}/.test(line) ? null : RULE_LINE.exec(line)
    const last = rules.at(-1)
    if (rule) rules.push({ name: rule[2]!, score: Number(rule[1]), description: rule[3]!.trim() })
    else if (last && !line.trim().startsWith('['))
      last.description = `${last.description} ${line.trim()}`
  }
  return rules
}
