/**
 * The URL a server bound to `host:port` is reached at. A wildcard bind is shown as 127.0.0.1
 * (or the address a request actually came in on, when there is one).
 *
 * @example serverUrl('127.0.0.1', 5025) // 'http://127.0.0.1:5025'
 * @example serverUrl('::1', 5025)       // 'http://[::1]:5025'
 * @example serverUrl('0.0.0.0', 5025, '192.168.1.20') // 'http://192.168.1.20:5025'
 * @example serverUrl('127.0.0.1', 5025, undefined, 'https') // 'https://127.0.0.1:5025'
 */
export function serverUrl(
  host: string,
  port: number,
  localAddress?: string,
  scheme: 'http' | 'https' = 'http',
): string {
  const wildcard = host === '0.0.0.0' || host === '::'
  const address = wildcard ? (localAddress?.replace(/^::ffff:(?=\d+\.)/, '') ?? '127.0.0.1') : host
  return `${scheme}://${address.includes(':') && !address.startsWith('[') ? `[${address}]` : address}:${port}`
}
