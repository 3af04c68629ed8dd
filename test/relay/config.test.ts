import { describe, expect, it } from 'vitest'
import { serveOptionsFrom } from '../../src/cli/flags.js'
import { ConfigError, relayConfig, resolveConfig } from '../../src/config.js'
import { relayAllows } from '../../src/core/release.js'

describe('--relay', () => {
  it('parses smtp:// and smtps:// with their default ports; the url shown has no credentials', () => {
    const relay = relayConfig('smtp://me%40acme:p%40ss@mail.acme.test')!
    expect(relay).toMatchObject({
      url: 'smtp://mail.acme.test:587',
      host: 'mail.acme.test',
      port: 587,
      secure: false,
      insecureTls: false,
      user: 'me@acme',
    })
    expect(relay.password()).toBe('p@ss')
    expect(JSON.stringify(relay)).not.toContain('p@ss')
    expect(relayConfig('smtps://h')).toMatchObject({ url: 'smtps://h:465', secure: true })
    expect(relayConfig('smtp://[::1]:2525?tls=insecure')).toMatchObject({
      url: 'smtp://[::1]:2525',
      host: '::1',
      insecureTls: true,
      user: null,
    })
    expect(relayConfig(undefined)).toBeNull()
  })

  it('a bad value is a ConfigError that never quotes it (it may hold a password)', () => {
    for (const value of [
      'http://me:hunter2@host',
      'smtp://me:hunter2@',
      'smtp://me:hunter2@host/path',
      'smtp://me:hunter2@host?tls=off',
    ]) {
      let error: unknown
      try {
        relayConfig(value)
      } catch (caught) {
        error = caught
      }
      expect(error, value).toBeInstanceOf(ConfigError)
      expect((error as Error).message).not.toContain('hunter2')
    }
  })

  it('flags and variables: SENDBOX_RELAY, SENDBOX_RELAY_ALLOW comma-separated, --relay-allow repeatable', () => {
    const { options } = serveOptionsFrom(
      ['--relay-allow', 'Me@Example.com', '--relay-allow', '*@acme.test'],
      {
        SENDBOX_RELAY: 'smtp://localhost:1025',
      },
    )
    const config = resolveConfig(options)
    expect(config.relay?.url).toBe('smtp://localhost:1025')
    expect(config.relayAllow).toEqual(['me@example.com', '*@acme.test'])
    const fromEnv = serveOptionsFrom([], { SENDBOX_RELAY_ALLOW: 'a@x.test,*@y.test' })
    expect(resolveConfig(fromEnv.options).relayAllow).toEqual(['a@x.test', '*@y.test'])
    for (const bad of ['*', 'a@b, c@d', '<a@b>', '*@*.test', 'a b@c'])
      expect(() => resolveConfig({ relayAllow: bad }), bad).toThrow(/--relay-allow/)
  })
})

describe('relayAllows', () => {
  it.each([
    ['me@example.com', 'ME@example.com', true],
    ['*@acme.test', 'anyone@Acme.test', true],
    ['*@acme.test', 'x@sub.acme.test', false],
    ['*@acme.test', 'x@acme.test.evil', false],
    ['me@example.com', 'me@example.com.evil', false],
  ] as const)('%s allows %s: %s', (pattern, address, allowed) => {
    expect(relayAllows([pattern], address)).toBe(allowed)
  })
})
