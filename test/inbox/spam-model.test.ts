import { afterEach, describe, expect, it, vi } from 'vitest'
import { SpamModel } from '../../src/inbox/page/spam-model.js'

/** The Checks tab's spam score, without a browser: a stubbed fetch. */

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const REPORT = { score: 0.6, threshold: 5, isSpam: false, rules: [] }
const error = (code: string, message: string) => ({ error: { code, message, details: [] } })

afterEach(() => vi.unstubAllGlobals())

describe('SpamModel', () => {
  it('asks the public API for the open message’s score', async () => {
    const fetch = vi.fn(async (_url: string) => answer(200, REPORT))
    vi.stubGlobal('fetch', fetch)
    const model = new SpamModel()
    await model.load('msg_1')
    expect(fetch.mock.calls[0]![0]).toBe('/_sandbox/api/messages/msg_1/spam')
    expect(model.score.value).toEqual({ state: 'ready', id: 'msg_1', report: REPORT })
  })

  it('without --spamassassin: off, and asks no more (the flag is the server’s)', async () => {
    const fetch = vi.fn(async () => answer(409, error('spam_check_not_configured', 'No spamd.')))
    vi.stubGlobal('fetch', fetch)
    const model = new SpamModel()
    await model.load('msg_1')
    expect(model.score.value).toEqual({ state: 'off' })
    model.reset()
    await model.load('msg_2')
    expect(model.score.value).toEqual({ state: 'off' })
    expect(fetch).toHaveBeenCalledTimes(1)
  })

  it('spamd failing: why, and a new try asks again', async () => {
    const why = 'spamd at 127.0.0.1:783 could not be reached (ECONNREFUSED).'
    vi.stubGlobal('fetch', async () => answer(502, error('spam_check_failed', why)))
    const model = new SpamModel()
    await model.load('msg_1')
    expect(model.score.value).toEqual({ state: 'failed', id: 'msg_1', message: why })
    vi.stubGlobal('fetch', async () => answer(200, REPORT))
    await model.load('msg_1')
    expect(model.score.value).toMatchObject({ state: 'ready', id: 'msg_1' })
  })

  it('an answer for a message no longer open is dropped', async () => {
    let release: (response: Response) => void = () => {}
    vi.stubGlobal('fetch', () => new Promise<Response>((resolve) => (release = resolve)))
    const model = new SpamModel()
    const first = model.load('msg_1')
    model.reset()
    release(answer(200, REPORT))
    await first
    expect(model.score.value).toEqual({ state: 'idle' })
  })
})
