import type { RelayConfig } from '../core/settings.js'
import {
  RelayFailure,
  type RelayMail,
  type RelayResult,
  type RelayTransport,
} from '../core/release.js'
import { isLoopbackHost } from './exposure.js'

/**
 * The relay's SMTP client, on nodemailer (loaded at the first release): one connection per
 * release (releases are rare; a pool would hold one open for nothing). STARTTLS when offered,
 * certificates verified unless `?tls=insecure`, no password in the clear to another machine,
 * and the password masked in every text that leaves here.
 *
 * @example
 * const relay = createRelayTransport(config.relay, { timeoutMs: 15000 })
 * await relay.send({ from, to: ['me@acme.test'], subject, html, text, id })
 */
export function createRelayTransport(
  relay: RelayConfig,
  { timeoutMs }: { timeoutMs: number },
): RelayTransport {
  const mask = maskerOf(relay.password())
  return {
    async send(mail: RelayMail): Promise<RelayResult> {
      const transport = await smtpTransport(relay, timeoutMs)
      // One deadline for the whole release: nodemailer's timeouts are per step.
      const deadline = deadlineOf(timeoutMs, () => {
        transport.close()
        return new RelayFailure(
          `The relay ${relay.url} did not answer within ${timeoutMs} ms; nothing was sent.`,
          null,
        )
      })
      try {
        const info = await Promise.race([
          transport.sendMail({
            from: { name: mail.from.name ?? '', address: mail.from.address },
            to: mail.to,
            subject: mail.subject,
            html: mail.html,
            text: mail.text,
            headers: { 'X-Sendbox-Message-Id': mail.id },
          }),
          deadline.reached,
        ])
        return {
          accepted: info.accepted.map(String),
          rejected: info.rejected.map(String),
          response: mask(info.response),
        }
      } catch (error) {
        if (error instanceof RelayFailure) throw error
        throw failure(error as SmtpError, relay.url, mask)
      } finally {
        deadline.clear()
        transport.close()
      }
    },
  }
}

/** Masks the password (as given, and URL-encoded) in a text that leaves here. */
function maskerOf(secret: string | null): (text: string) => string {
  return (text) => {
    if (!secret) return text
    let masked = text
    for (const form of new Set([secret, encodeURIComponent(secret)]))
      masked = masked.split(form).join('***')
    return masked
  }
}

/** A nodemailer transport for one release (nodemailer loaded at the first). */
async function smtpTransport(relay: RelayConfig, timeoutMs: number) {
  const { createTransport } = (await import('nodemailer')).default
  const secret = relay.password()
  return createTransport({
    host: relay.host,
    port: relay.port,
    secure: relay.secure,
    ...(relay.user !== null ? { auth: { user: relay.user, pass: secret ?? '' } } : {}),
    // Credentials in the clear only to this machine (a local test server without TLS).
    requireTLS: relay.user !== null && !relay.secure && !isLoopbackHost(relay.host),
    tls: { rejectUnauthorized: !relay.insecureTls },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    // The message is given whole: nodemailer must read no file and fetch no URL for it.
    disableFileAccess: true,
    disableUrlAccess: true,
  })
}

/** A promise that rejects with `failure()` after `ms`, unless cleared first. */
function deadlineOf(ms: number, failure: () => Error): { reached: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined
  const reached = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure()), ms)
  })
  return { reached, clear: () => clearTimeout(timer) }
}

/** What nodemailer's errors carry besides a message. */
interface SmtpError extends Error {
  code?: string
  response?: string
  command?: string
}

/** A nodemailer error → a sentence a person can act on, and the server's reply. */
function failure(error: SmtpError, url: string, mask: (text: string) => string): RelayFailure {
  const response = error.response ? mask(error.response) : null
  const what =
    error.code === 'EAUTH'
      ? 'refused the user name and password of --relay'
      : error.code === 'EENVELOPE'
        ? 'refused every recipient'
        : error.code === 'ETIMEDOUT'
          ? 'did not answer in time'
          : error.code === 'ECONNECTION' || error.code === 'ESOCKET' || error.code === 'EDNS'
            ? 'could not be reached, or its TLS could not be set up'
            : 'refused the message'
  return new RelayFailure(
    `The relay ${url} ${what}: ${mask(error.message)}. Nothing was sent.`,
    response,
  )
}
