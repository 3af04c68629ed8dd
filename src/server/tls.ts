import { createPrivateKey, X509Certificate } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { networkInterfaces, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { ConfigError, type SendboxConfig } from '../config.js'
import { isLoopbackHost, reachableAddresses } from './exposure.js'

/**
 * What `--https` serves with (docs/https.md#what-it-makes-and-where): your own certificate and key, or the local CA's,
 * kept beside the log (with `--memory`, in a temporary folder removed at close).
 */
export interface TlsSetup {
  cert: string
  key: string
  /** The local CA's certificate, PEM; null with your own certificate. */
  ca: string | null
  caFile: string | null
  /** Removes the temporary folder of a `--memory` sandbox. */
  close(): Promise<void>
}

/**
 * The names and addresses the server certificate covers: the loopback ones, and with a network
 * `--host` that address (every interface's, for a wildcard), so that a phone on the network
 * that trusts the CA can open the inbox too.
 *
 * @example certificateHosts('127.0.0.1') // ['localhost', '127.0.0.1', '::1']
 * @example certificateHosts('192.168.1.20') // ['localhost', '127.0.0.1', '::1', '192.168.1.20']
 */
export function certificateHosts(host: string, interfaces = networkInterfaces()): string[] {
  const local = ['localhost', '127.0.0.1', '::1']
  if (isLoopbackHost(host)) return local
  return [...new Set([...local, ...reachableAddresses(host, interfaces)])]
}

async function readPem(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    throw new ConfigError(flag, `could not read ${file}: ${(error as Error).message}`)
  }
}

/** `--https-cert` and `--https-key`: read, and checked to belong together. */
async function ownCertificate(certFile: string, keyFile: string): Promise<TlsSetup> {
  const [cert, key] = await Promise.all([
    readPem('--https-cert', certFile),
    readPem('--https-key', keyFile),
  ])
  let x509: X509Certificate
  try {
    x509 = new X509Certificate(cert)
  } catch {
    throw new ConfigError('--https-cert', `${certFile} is not a PEM certificate`)
  }
  let matches: boolean
  try {
    matches = x509.checkPrivateKey(createPrivateKey(key))
  } catch {
    throw new ConfigError(
      '--https-key',
      `${keyFile} is not a PEM private key (without a passphrase)`,
    )
  }
  if (!matches)
    throw new ConfigError('--https-key', `${keyFile} is not the key of the certificate ${certFile}`)
  return { cert, key, ca: null, caFile: null, close: async () => {} }
}

/**
 * The certificate and key to serve HTTPS with, or null without `--https`.
 *
 * @example
 * const tls = await setUpTls(config, logger.warn)
 * tls?.caFile // '/project/.sendbox/ca.pem'
 */
export async function setUpTls(
  config: Pick<
    SendboxConfig,
    'https' | 'httpsCert' | 'httpsKey' | 'httpsCertDays' | 'dbFile' | 'host'
  >,
  warn: (message: string) => void,
): Promise<TlsSetup | null> {
  if (!config.https) return null
  if (config.httpsCert && config.httpsKey) return ownCertificate(config.httpsCert, config.httpsKey)
  // mkdtemp makes it 0700.
  const temporary = config.dbFile ? null : await mkdtemp(join(tmpdir(), 'sendbox-tls-'))
  const dir = temporary ?? dirname(config.dbFile!)
  const { localCertificates } = await import('./local-ca.js')
  try {
    const tls = await localCertificates(dir, {
      hosts: certificateHosts(config.host),
      serverDays: config.httpsCertDays,
      warn,
    })
    return {
      cert: tls.cert,
      key: tls.key,
      ca: tls.ca,
      caFile: tls.caFile,
      close: async () => {
        if (temporary) await rm(temporary, { recursive: true, force: true })
      },
    }
  } catch (error) {
    if (temporary) await rm(temporary, { recursive: true, force: true })
    throw error
  }
}
