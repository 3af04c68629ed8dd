import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Page } from '../../src/inbox/page/page.js'
import { RELEASE_TO_KEY, ReleaseModel } from '../../src/inbox/page/release-model.js'

/** "Send to a real inbox"'s model, without a browser: a stubbed fetch and storage. */

function storage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial))
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    items,
  }
}

function page(): Page & { said: string[] } {
  const said: string[] = []
  return { said, announce: (text: string) => said.push(text) } as unknown as Page & {
    said: string[]
  }
}

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

afterEach(() => vi.unstubAllGlobals())

describe('ReleaseModel', () => {
  it('starts from the remembered addresses, sends them split, remembers them, says what the relay said', async () => {
    const store = storage({ [RELEASE_TO_KEY]: 'me@example.com' })
    vi.stubGlobal('localStorage', store)
    const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
      answer(200, {
        accepted: ['me@example.com', 'you@example.com'],
        rejected: [],
        response: '250 Ok',
      }),
    )
    vi.stubGlobal('fetch', fetch)
    const p = page()
    const model = new ReleaseModel(p)
    expect(model.to.value).toBe('me@example.com')
    model.to.value = 'me@example.com, you@example.com;  '
    await model.send('msg_1')
    expect(fetch.mock.calls[0]![0]).toBe('/_sandbox/api/messages/msg_1/release')
    expect(JSON.parse(String(fetch.mock.calls[0]![1]!.body))).toEqual({
      to: ['me@example.com', 'you@example.com'],
    })
    expect(model.result.value).toMatchObject({ state: 'sent', result: { response: '250 Ok' } })
    expect(store.items.get(RELEASE_TO_KEY)).toBe('me@example.com, you@example.com')
    expect(p.said).toEqual(['Sent to me@example.com, you@example.com'])
  })

  it("keeps the server's refusal, remembers nothing, and asks for an address before sending none", async () => {
    const store = storage()
    vi.stubGlobal('localStorage', store)
    const fetch = vi.fn(async () =>
      answer(422, {
        error: { code: 'relay_not_allowed', message: '"x@y.test" is not allowed', details: [] },
      }),
    )
    vi.stubGlobal('fetch', fetch)
    const model = new ReleaseModel(page())
    await model.send('msg_1')
    expect(fetch).not.toHaveBeenCalled()
    expect(model.result.value).toMatchObject({ state: 'failed', code: 'validation_failed' })
    model.to.value = 'x@y.test'
    await model.send('msg_1')
    expect(model.result.value).toEqual({
      state: 'failed',
      code: 'relay_not_allowed',
      message: '"x@y.test" is not allowed',
    })
    expect(store.items.size).toBe(0)
    model.reset()
    expect(model.result.value).toEqual({ state: 'idle' })
    expect(model.to.value).toBe('x@y.test')
  })

  it('storage that is off is no error', () => {
    vi.stubGlobal('localStorage', {
      getItem: () => {
        throw new Error('denied')
      },
    })
    expect(new ReleaseModel(page()).to.value).toBe('')
  })
})
