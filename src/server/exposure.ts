import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { serverUrl } from '../http/url.js'

/**
 * What a non-loopback `--host` exposes, said once at start (docs/security.md): the inbox and the
 * inspector are open to whoever can reach the address, so sendbox names every URL that reaches it.
 */

/**
 * Whether binding to `host` keeps the server on this machine.
 *
 * @example isLoopbackHost('127.0.0.1') // true
 * @example isLoopbackHost('0.0.0.0')   // false
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '')
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (isIP(name) === 4) return name.startsWith('127.')
  return name === '::1' || name === '::ffff:127.0.0.1'
}

/**
 * Every address a server bound to `host` answers at: for a wildcard, those of this machine's
 * interfaces (IPv4 for 0.0.0.0; IPv4 and IPv6 for ::, link-local ones left out).
 *
 * @example reachableAddresses('192.168.1.20') // ['192.168.1.20']
 */
export function reachableAddresses(host: string, interfaces = networkInterfaces()): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [host]
  const addresses: string[] = []
  for (const list of Object.values(interfaces)) {
    for (const address of list ?? []) {
      if (
        address.family === 'IPv6' &&
        (host === '0.0.0.0' || address.address.toLowerCase().startsWith('fe80'))
      )
        continue
      addresses.push(address.address)
    }
  }
  return [...new Set(addresses)]
}

/**
 * Every URL a server bound to `host:port` answers at (see `reachableAddresses`).
 *
 * @example reachableUrls('192.168.1.20', 5025) // ['http://192.168.1.20:5025']
 */
export function reachableUrls(
  host: string,
  port: number,
  interfaces = networkInterfaces(),
  scheme: 'http' | 'https' = 'http',
): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [serverUrl(host, port, undefined, scheme)]
  return [
    ...new Set(
      reachableAddresses(host, interfaces).map((a) => serverUrl(a, port, undefined, scheme)),
    ),
  ]
}

/**
 * The warning for a non-loopback bind, or null for a loopback one.
 *
 * @example exposureWarning({ host: '0.0.0.0', inspectorPassword: null }, 5025)
 * // 'sendbox is listening on 0.0.0.0, which other machines can reach: …'
 */
export function exposureWarning(
  config: { host: string; inspectorPassword: string | null; https?: boolean },
  port: number,
  interfaces = networkInterfaces(),
): string | null {
  if (isLoopbackHost(config.host)) return null
  const urls = reachableUrls(config.host, port, interfaces, config.https ? 'https' : 'http')
  const guarded = config.inspectorPassword !== null
  return [
    `sendbox is listening on ${config.host}, which other machines can reach: ${
      guarded
        ? 'the inbox and the inspector ask for the --inspector-password password,'
        : 'anyone who reaches it can read every message in the inbox (sign-in links and codes included), delete them, overwrite fixture files and arm faults,'
    } and the API accepts any sandbox token. It answers at:`,
    ...urls.map((url) => `  ${url}/_sandbox/`),
    guarded
      ? 'Requests addressed to a host name rather than an IP address also need --allowed-host <name>.'
      : 'Set --inspector-password (better: SENDBOX_INSPECTOR_PASSWORD) to require a password for the inbox and the inspector, or bind to 127.0.0.1 (the default) to keep it on this machine. Requests addressed to a host name rather than an IP address also need --allowed-host <name>.',
  ].join('\n')
}
