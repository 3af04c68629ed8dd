import { createServer, type Server, type Socket } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

/** A message an SMTP test server took: the envelope, whether it came over TLS, and the parsed message. */
export interface Received {
  from: string
  to: string[]
  secure: boolean
  user: string | undefined
  mail: ParsedMail
}

export interface TestSmtpServer {
  port: number
  /** The messages taken so far, in order. */
  received: Received[]
  /** The next message taken (or one taken already and not yet asked for). */
  next(): Promise<Received>
  close(): Promise<void>
}

export interface TestSmtpOptions {
  /** Required credentials (AUTH PLAIN/LOGIN); without them, no AUTH. */
  auth?: { user: string; pass: string }
  /** Refuse these recipients at RCPT TO with 550. */
  refuse?: string[]
  /** Offer STARTTLS with this certificate and key. */
  tls?: { cert: string; key: string }
}

/**
 * A real SMTP server (nodemailer's smtp-server) on a free port of 127.0.0.1, parsing each
 * message it takes with mailparser.
 *
 * @example
 * const smtp = await startSmtpServer({ auth: { user: 'me', pass: 'secret' } })
 * // … release a message to smtp://me:secret@127.0.0.1:${smtp.port}
 * const { mail } = await smtp.next()
 */
export async function startSmtpServer(options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const received: Received[] = []
  const waiting: Array<(message: Received) => void> = []
  let taken = 0
  const serverOptions: SMTPServerOptions = {
    logger: false,
    authOptional: !options.auth,
    // Credentials over plain text to this machine only: what a local test server does.
    allowInsecureAuth: true,
    disabledCommands: options.auth ? [] : ['AUTH'],
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : { hideSTARTTLS: true }),
    onAuth(auth, _session, callback) {
      const ok = auth.username === options.auth?.user && auth.password === options.auth?.pass
      callback(
        ok ? null : new Error('Authentication credentials invalid'),
        ok ? { user: auth.username } : undefined,
      )
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.includes(address.address)) {
        const error = new Error(`No such mailbox here: ${address.address}`) as Error & {
          responseCode: number
        }
        error.responseCode = 550
        return callback(error)
      }
      callback()
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const message: Received = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            secure: session.secure,
            user: session.user as string | undefined,
            mail,
          }
          received.push(message)
          const waiter = waiting.shift()
          if (waiter) {
            taken++
            waiter(message)
          }
          callback(null, 'Ok: queued as TEST1')
        },
        (error: Error) => callback(error),
      )
    },
  }
  const server = new SMTPServer(serverOptions)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.server.address() as { port: number }).port
  return {
    port,
    received,
    next: () =>
      taken < received.length
        ? Promise.resolve(received[taken++]!)
        : new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/**
 * A TCP server that takes connections and never says a word (no SMTP greeting): what a relay
 * that hangs looks like.
 */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A port nothing listens on: taken from the system, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
