import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { createSigner } from '../../src/core/webhooks-signing.js'

const SECRET = `whsec_${Buffer.from('a fixed secret for the tests, 32 b').toString('base64')}`

describe('webhook signing', () => {
  it('signs per Standard Webhooks: the package verifies it, and the headers are complete', () => {
    const sign = createSigner(SECRET, 'sendbox/9.9')
    const body = '{"type":"message.sent","data":{"name":"Zoë"}}'
    const headers = sign('evt_1', body)
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'sendbox/9.9',
      'webhook-id': 'evt_1',
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
    })
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('the timestamp is the given time in seconds, and the signature covers it and the body', () => {
    const sign = createSigner(SECRET, 'ua')
    const a = sign('evt_1', '{}', 1_795_255_200_999)
    expect(a['webhook-timestamp']).toBe('1795255200')
    expect(sign('evt_1', '{}', 1_795_255_200_000)['webhook-signature']).toBe(a['webhook-signature'])
    expect(sign('evt_1', '{}', 1_795_255_201_000)['webhook-signature']).not.toBe(
      a['webhook-signature'],
    )
    expect(sign('evt_1', '{ }', 1_795_255_200_000)['webhook-signature']).not.toBe(
      a['webhook-signature'],
    )
    expect(sign('evt_2', '{}', 1_795_255_200_000)['webhook-signature']).not.toBe(
      a['webhook-signature'],
    )
  })
})
