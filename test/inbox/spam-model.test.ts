import { afterEach, describe, expect, it, vi } from 'vitest'
import { SpamModel } from '../../src/inbox/page/spam-model.js'

/** The Checks tab's spam score, without a browser: a stubbed fetch. */

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const REPORT = { score: 0.6, threshold: 5, isSpam: false, rules: [] }
const error = (code: string, message: string) => ({ error: { code, message, details: [] } })
const CONFIGURED = { configured: true, spamd: '127.0.0.1:783' }

/** A fetch that answers GET /spam with `check`, and every score with `score()`. */
const server = (check: unknown, score: () => Response | Promise<Response>) =>
  vi.fn(async (url: string) => (url === '/_sandbox/api/spam' ? answer(200, check) : score()))

afterEach(() => vi.unstubAllGlobals())

describe('SpamModel', () => {
  it('asks the public API whether spamd is configured, once, then the open message’s score', async () => {
    const fetch = server(CONFIGURED, () => answer(200, REPORT))
    vi.stubGlobal('fetch', fetch)
    const model = new SpamModel()
    await model.load('msg_1')
    expect(fetch.mock.calls.map((call) => call[0])).toEqual([
      '/_sandbox/api/spam',
      '/_sandbox/api/messages/msg_1/spam',
    ])
    expect(model.score.value).toEqual({ state: 'ready', id: 'msg_1', report: REPORT })
    model.reset()
    await model.load('msg_2')
    expect(fetch).toHaveBeenCalledTimes(3)
  })

  it('without --spamassassin: off, and no score is asked (each would be a 409 in the console)', async () => {
    const fetch = server({ configured: false, spamd: null }, () => answer(500, {}))
    vi.stubGlobal('fetch', fetch)
    const model = new SpamModel()
    await model.load('msg_1')
    expect(model.score.value).toEqual({ state: 'off' })
    model.reset()
    await model.load('msg_2')
    expect(model.score.value).toEqual({ state: 'off' })
    expect(fetch.mock.calls.map((call) => call[0])).toEqual(['/_sandbox/api/spam'])
  })

  it('a 409 all the same (the flag read wrong): off, and asks no more', async () => {
    const fetch = server(CONFIGURED, () =>
      answer(409, error('spam_check_not_configured', 'No spamd.')),
    )
    vi.stubGlobal('fetch', fetch)
    const model = new SpamModel()
    await model.load('msg_1')
    expect(model.score.value).toEqual({ state: 'off' })
    await model.load('msg_2')
    expect(fetch).toHaveBeenCalledTimes(2)
  })

  it('spamd failing: why, and a new try asks again', async () => {
    const why = 'spamd at 127.0.0.1:783 could not be reached (ECONNREFUSED).'
    vi.stubGlobal(
      'fetch',
      server(CONFIGURED, () => answer(502, error('spam_check_failed', why))),
    )
    const model = new SpamModel()
    await model.load('msg_1')
    expect(model.score.value).toEqual({ state: 'failed', id: 'msg_1', message: why })
    vi.stubGlobal(
      'fetch',
      server(CONFIGURED, () => answer(200, REPORT)),
    )
    await model.load('msg_1')
    expect(model.score.value).toMatchObject({ state: 'ready', id: 'msg_1' })
  })

  it('an answer for a message no longer open is dropped', async () => {
    let release: ((response: Response) => void) | null = null
    vi.stubGlobal(
      'fetch',
      server(CONFIGURED, () => new Promise<Response>((resolve) => (release = resolve))),
    )
    const model = new SpamModel()
    const first = model.load('msg_1')
    // The score is asked (after GET /spam): the message closes while it is under way.
    await vi.waitUntil(() => release !== null)
    model.reset()
    release!(answer(200, REPORT))
    await first
    expect(model.score.value).toEqual({ state: 'idle' })
  })
})
