import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { chmod, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  localCertificates,
  RENEW_DAYS,
  SERVER_DAYS,
  TLS_FILES,
  unusableReason,
} from '../../src/server/local-ca.js'
import { tempDir } from '../helpers/sandbox.js'

/** The local CA on disk (docs/https.md#what-it-makes-and-where): made once, owner-only, reused, renewed near its end. */

const DAY = 24 * 60 * 60 * 1000
const mode = async (path: string) => (await stat(path)).mode & 0o777
const at = (base: Date, days: number) => new Date(base.getTime() + days * DAY)

/** What openssl says a certificate holds, in text. */
const dump = (pem: string) =>
  execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' })

describe('localCertificates', () => {
  it('makes a CA and a server certificate owner-only, then reuses both', async () => {
    const dir = join(await tempDir('sendbox-ca-'), '.sendbox')
    const first = await localCertificates(dir)
    expect(first).toMatchObject({ caCreated: true, issued: true, caFile: join(dir, 'ca.pem') })
    expect(await mode(dir)).toBe(0o700)
    for (const name of Object.values(TLS_FILES)) expect(await mode(join(dir, name))).toBe(0o600)
    expect(await readFile(join(dir, 'ca.pem'), 'utf8')).toBe(first.ca)

    const again = await localCertificates(dir)
    expect(again).toMatchObject({ caCreated: false, issued: false })
    expect([again.ca, again.cert, again.key]).toEqual([first.ca, first.cert, first.key])
  })

  it('has the extensions strict verifiers want, and the server certificate chains to the CA', async () => {
    const tls = await localCertificates(join(await tempDir('sendbox-ca-'), 'tls'))
    const ca = dump(tls.ca)
    expect(ca).toMatch(/Basic Constraints: critical\s+CA:TRUE/)
    expect(ca).toMatch(/Key Usage: critical\s+Certificate Sign, CRL Sign/)
    expect(ca).toMatch(/Subject Key Identifier/)
    const leaf = dump(tls.cert)
    expect(leaf).toMatch(/Basic Constraints: critical\s+CA:FALSE/)
    expect(leaf).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment/)
    expect(leaf).toMatch(/Extended Key Usage:\s+TLS Web Server Authentication/)
    expect(leaf).toMatch(/DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1/)
    const caKeyId = /Subject Key Identifier:\s+(\S+)/.exec(ca)![1]
    expect(leaf).toMatch(new RegExp(`Authority Key Identifier:\\s+(keyid:)?${caKeyId}`))
    const cert = new X509Certificate(tls.cert)
    expect(cert.checkIssued(new X509Certificate(tls.ca))).toBe(true)
    const days = (new Date(cert.validTo).getTime() - Date.now()) / DAY
    expect(days).toBeCloseTo(SERVER_DAYS, 0)
  })

  it(`renews the server certificate with fewer than ${RENEW_DAYS} days left, keeping the CA`, async () => {
    const dir = await tempDir('sendbox-ca-')
    const now = new Date()
    const first = await localCertificates(dir, { now })
    // One day before the threshold: still reused.
    const before = await localCertificates(dir, { now: at(now, SERVER_DAYS - RENEW_DAYS - 1) })
    expect(before).toMatchObject({ caCreated: false, issued: false, cert: first.cert })
    const near = at(now, SERVER_DAYS - RENEW_DAYS + 1)
    const renewed = await localCertificates(dir, { now: near })
    expect(renewed).toMatchObject({ caCreated: false, issued: true, ca: first.ca })
    expect(renewed.cert).not.toBe(first.cert)
    expect(new Date(new X509Certificate(renewed.cert).validTo).getTime()).toBeGreaterThan(
      at(near, SERVER_DAYS - 1).getTime(),
    )
  })

  it('makes a new CA when the old one nears its end, and says so', async () => {
    const dir = await tempDir('sendbox-ca-')
    const first = await localCertificates(dir)
    const warnings: string[] = []
    const later = await localCertificates(dir, {
      now: at(new Date(), 3650 - RENEW_DAYS + 1),
      warn: (m) => warnings.push(m),
    })
    expect(later).toMatchObject({ caCreated: true, issued: true })
    expect(later.ca).not.toBe(first.ca)
    expect(warnings).toEqual([expect.stringMatching(/expires within 30 days.*trust again/)])
  })

  it('replaces files that are not a certificate, or whose key does not match', async () => {
    const dir = await tempDir('sendbox-ca-')
    const first = await localCertificates(dir)
    await writeFile(join(dir, TLS_FILES.key), first.ca)
    const fixed = await localCertificates(dir)
    expect(fixed).toMatchObject({ caCreated: false, issued: true })
    const other = await localCertificates(await tempDir('sendbox-ca-'))
    await writeFile(join(dir, TLS_FILES.caKey), other.key)
    const warnings: string[] = []
    expect(await localCertificates(dir, { warn: (m) => warnings.push(m) })).toMatchObject({
      caCreated: true,
      issued: true,
    })
    expect(warnings).toEqual([expect.stringMatching(/key does not match/)])
  })

  it('issues a new server certificate when it must cover another address', async () => {
    const dir = await tempDir('sendbox-ca-')
    await localCertificates(dir)
    const lan = await localCertificates(dir, {
      hosts: ['localhost', '127.0.0.1', '::1', '192.0.2.7'],
    })
    expect(lan.issued).toBe(true)
    expect(new X509Certificate(lan.cert).checkIP('192.0.2.7')).toBe('192.0.2.7')
  })

  it('closes up files someone opened up', async () => {
    const dir = await tempDir('sendbox-ca-')
    await localCertificates(dir)
    await chmod(join(dir, TLS_FILES.caKey), 0o644)
    await localCertificates(dir)
    expect(await mode(join(dir, TLS_FILES.caKey))).toBe(0o600)
  })
})

describe('unusableReason', () => {
  it('names what is wrong', async () => {
    const tls = await localCertificates(await tempDir('sendbox-ca-'))
    const now = new Date()
    expect(unusableReason(tls, now)).toBeNull()
    expect(unusableReason({ cert: 'nope', key: tls.key }, now)).toMatch(/does not parse/)
    expect(unusableReason(tls, at(now, -1))).toBe('it is not valid yet')
    expect(unusableReason(tls, now, { hosts: ['example.test'] })).toBe(
      'it does not cover example.test',
    )
    const other = await localCertificates(await tempDir('sendbox-ca-'))
    expect(unusableReason(tls, now, { issuer: new X509Certificate(other.ca) })).toBe(
      'another CA signed it',
    )
  })
})
