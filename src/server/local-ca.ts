import { createPrivateKey, X509Certificate } from 'node:crypto'
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { join } from 'node:path'
import type { KeyedCertificate } from './certificates.js'

/**
 * sendbox's local CA on disk: made once, kept owner-only in a folder (the log's), and the server
 * certificate it signs, reused across starts until either nears its end. Reading and checking
 * use `node:crypto` alone; forge (./certificates.js) is loaded only to make something new.
 */

/** The files, in the folder given. The key files never leave it; `ca.pem` is what clients trust. */
export const TLS_FILES = {
  ca: 'ca.pem',
  caKey: 'ca-key.pem',
  cert: 'localhost.pem',
  key: 'localhost-key.pem',
} as const

/** Ten years: the CA is what users trust by hand, so it should outlive the project. */
export const CA_DAYS = 3650
/**
 * 397 days: under the 398 days browsers allow a server certificate of a public CA, and well
 * under the 825 days macOS and iOS allow any server certificate, even of a CA added by hand.
 * Renewing it needs nothing from the user (the CA stays).
 */
export const SERVER_DAYS = 397
/**
 * A certificate with fewer days left than this is made anew at start. 30: a sandbox restarted
 * at least once a month never serves an expired certificate (the check runs at start only, so a
 * process left running past the end is not covered), and a month is under 8% of a server
 * certificate's life, so renewals stay rare.
 */
export const RENEW_DAYS = 30

const DAY_MS = 24 * 60 * 60 * 1000

/** The names and addresses every server certificate covers. */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'] as const

export interface LocalCertificates extends KeyedCertificate {
  /** The CA certificate, PEM: what a client trusts. */
  ca: string
  caFile: string
  /** Whether the CA was made by this call (clients trusting an earlier one must trust this one). */
  caCreated: boolean
  /** Whether the server certificate was made by this call. */
  issued: boolean
}

export interface LocalCertificateOptions {
  /** Names and IP addresses the server certificate covers; default `LOCAL_HOSTS`. */
  hosts?: readonly string[]
  /** The clock, for tests. */
  now?: Date
  /** Validity of a new server certificate; default `SERVER_DAYS`. */
  serverDays?: number
  /** Told when a file there could not be used and was replaced. */
  warn?: (message: string) => void
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Written beside, then renamed over: a start killed midway never leaves half a key. */
async function writeOwnerOnly(file: string, text: string): Promise<void> {
  const next = `${file}.${process.pid}.tmp`
  await writeFile(next, text, { mode: 0o600 })
  // An older temporary file kept its own mode: make sure.
  await chmod(next, 0o600)
  await rename(next, file)
}

/** Owner-only even when reused: a file someone opened up is closed again. */
async function keepOwnerOnly(file: string): Promise<void> {
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600)
}

/**
 * Why a certificate and key cannot be (re)used, or null when they can: it does not parse, the
 * key is not its key, it is not yet or soon no longer valid, it is not signed by `issuer`, or
 * it misses one of `hosts`.
 */
export function unusableReason(
  pair: KeyedCertificate,
  now: Date,
  check: { issuer?: X509Certificate; hosts?: readonly string[] } = {},
): string | null {
  let cert: X509Certificate
  try {
    cert = new X509Certificate(pair.cert)
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return 'its key does not match'
  } catch (error) {
    return `it does not parse (${(error as Error).message})`
  }
  if (new Date(cert.validFrom).getTime() > now.getTime()) return 'it is not valid yet'
  if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_DAYS * DAY_MS)
    return `it expires within ${RENEW_DAYS} days`
  if (check.issuer && !(cert.checkIssued(check.issuer) && cert.verify(check.issuer.publicKey)))
    return 'another CA signed it'
  const missing = (check.hosts ?? []).find((host) =>
    isIP(host) ? cert.checkIP(host) === undefined : cert.checkHost(host) === undefined,
  )
  return missing === undefined ? null : `it does not cover ${missing}`
}

async function readPair(certFile: string, keyFile: string): Promise<KeyedCertificate | null> {
  const [cert, key] = await Promise.all([readText(certFile), readText(keyFile)])
  return cert === null || key === null ? null : { cert, key }
}

/**
 * The CA and the server certificate in `dir`, made when missing and made anew when they near
 * their end (`RENEW_DAYS`), no longer parse, or (the server's) no longer cover `hosts`. The
 * folder is created `0700`, every file written `0600`.
 *
 * @example
 * const tls = await localCertificates('.sendbox')
 * https.createServer({ cert: tls.cert, key: tls.key }, handler)
 * // clients: NODE_EXTRA_CA_CERTS=.sendbox/ca.pem
 */
export async function localCertificates(
  dir: string,
  options: LocalCertificateOptions = {},
): Promise<LocalCertificates> {
  const { hosts = LOCAL_HOSTS, now = new Date(), serverDays = SERVER_DAYS, warn } = options
  const file = (name: keyof typeof TLS_FILES) => join(dir, TLS_FILES[name])
  await mkdir(dir, { recursive: true, mode: 0o700 })
  // Loaded once, only when something has to be made.
  let maker: Promise<typeof import('./certificates.js')> | undefined
  const make = () => (maker ??= import('./certificates.js'))

  let ca = await readPair(file('ca'), file('caKey'))
  const caProblem = ca && unusableReason(ca, now)
  const caCreated = ca === null || caProblem !== null
  // A new CA means a new server certificate: both keys are generated side by side.
  const serverKeys = caCreated ? make().then((m) => m.rsaKeyPair()) : undefined
  // Awaited below; a CA that fails first must not leave this rejection unhandled.
  serverKeys?.catch(() => {})
  if (caCreated) {
    if (caProblem)
      warn?.(
        `The local CA in ${file('ca')} cannot be used (${caProblem}): sendbox made a new one, which clients must trust again.`,
      )
    ca = await (await make()).createCa({ now, days: CA_DAYS })
    await writeOwnerOnly(file('caKey'), ca.key)
    await writeOwnerOnly(file('ca'), ca.cert)
  }
  const caPair = ca as KeyedCertificate
  const issuer = new X509Certificate(caPair.cert)
  let server = caCreated ? null : await readPair(file('cert'), file('key'))
  const issued = server === null || unusableReason(server, now, { issuer, hosts }) !== null
  if (issued) {
    server = await (await make()).issueServerCertificate(caPair, {
      hosts,
      now,
      days: serverDays,
      ...(serverKeys ? { keys: await serverKeys } : {}),
    })
    await writeOwnerOnly(file('key'), server.key)
    await writeOwnerOnly(file('cert'), server.cert)
  }
  await Promise.all((['ca', 'caKey', 'cert', 'key'] as const).map((n) => keepOwnerOnly(file(n))))
  return {
    ...(server as KeyedCertificate),
    ca: caPair.cert,
    caFile: file('ca'),
    caCreated,
    issued,
  }
}
