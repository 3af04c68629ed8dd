import { connect, type Socket } from 'node:net'
import {
  parseSpamdReport,
  SpamdAnswerError,
  SpamdError,
  type SpamdFailureReason,
  type SpamReport,
  spamdRequest,
} from './spamd-protocol.js'

export {
  SpamdError,
  type SpamdFailureReason,
  type SpamReport,
  type SpamRule,
} from './spamd-protocol.js'

/**
 * A SpamAssassin `spamd` over TCP: one connection per request, as `spamc` does (spamd answers
 * one request a connection and closes it). Every failure is a `SpamdError` naming `host:port`
 * and why; nothing here throws anything else or leaves a socket open.
 */

/** Where `--spamassassin` points. */
export interface SpamdAddress {
  host: string
  port: number
}

/** A spamd that has said nothing in 10 s is not going to: SpamAssassin checks a message in well under one. */
export const SPAMD_TIMEOUT_MS = 10_000

/** spamd's `REPORT` answer is a page of text; past this it is not spamd answering. */
const MAX_ANSWER_BYTES = 1024 * 1024

/**
 * `host:port`, with an IPv6 host in brackets.
 *
 * @example spamdName({ host: '::1', port: 783 }) // '[::1]:783'
 */
export const spamdName = ({ host, port }: SpamdAddress): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`

export interface SpamdOptions {
  /** The whole exchange, connection included. Default 10 s. */
  timeoutMs?: number
}

/**
 * Scores one RFC 5322 message with spamd's `REPORT`: the score, the threshold and the rules.
 * Rejects with a `SpamdError` only.
 *
 * @example
 * const report = await scoreWithSpamd({ host: '127.0.0.1', port: 783 }, toEml(record))
 * report.rules[0] // { name: 'MISSING_DATE', score: 2.7, description: 'Missing Date: header' }
 */
export async function scoreWithSpamd(
  address: SpamdAddress,
  message: Uint8Array,
  options: SpamdOptions = {},
): Promise<SpamReport> {
  const answer = await exchange(address, spamdRequest('REPORT', message), options)
  try {
    return parseSpamdReport(answer)
  } catch (error) {
    if (!(error instanceof SpamdAnswerError)) throw error
    throw new SpamdError(
      'bad_answer',
      spamdName(address),
      `spamd at ${spamdName(address)}: ${error.message}.`,
    )
  }
}

/**
 * Whether spamd answers `PING` with `PONG` (its rules loaded, ready to check).
 *
 * @example await pingSpamd({ host: '127.0.0.1', port: 783 }) // true
 */
export async function pingSpamd(
  address: SpamdAddress,
  options: SpamdOptions = {},
): Promise<boolean> {
  try {
    const answer = Buffer.from(await exchange(address, spamdRequest('PING'), options))
    return /^SPAMD\/\d+\.\d+ 0 PONG\r\n/.test(answer.toString('latin1'))
  } catch (error) {
    if (error instanceof SpamdError) return false
    throw error
  }
}

/** Sends the request and reads until spamd closes: the whole answer, or a `SpamdError`. */
function exchange(address: SpamdAddress, request: Buffer, options: SpamdOptions): Promise<Buffer> {
  const name = spamdName(address)
  const timeoutMs = options.timeoutMs ?? SPAMD_TIMEOUT_MS
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let bytes = 0
    let connected = false
    const socket: Socket = connect({ host: address.host, port: address.port })
    const fail = (reason: SpamdFailureReason, why: string) => {
      clearTimeout(timer)
      socket.destroy()
      reject(new SpamdError(reason, name, `spamd at ${name} ${why}.`))
    }
    const timer = setTimeout(
      () => fail('timeout', `did not answer within ${timeoutMs / 1000} s`),
      timeoutMs,
    )
    socket.on('connect', () => {
      connected = true
      socket.end(request)
    })
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > MAX_ANSWER_BYTES)
        return fail('bad_answer', `answered more than ${MAX_ANSWER_BYTES} bytes: not spamd`)
      chunks.push(chunk)
    })
    socket.on('error', (error: NodeJS.ErrnoException) =>
      connected
        ? fail('bad_answer', `broke the connection (${error.code ?? error.message})`)
        : fail('refused', `could not be reached (${error.code ?? error.message})`),
    )
    socket.on('end', () => {
      clearTimeout(timer)
      socket.destroy()
      if (bytes === 0)
        reject(
          new SpamdError(
            'bad_answer',
            name,
            `spamd at ${name} closed the connection without an answer.`,
          ),
        )
      else resolve(Buffer.concat(chunks))
    })
  })
}
