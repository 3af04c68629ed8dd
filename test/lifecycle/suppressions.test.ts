import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { errorOf, startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/** The suppression list (docs/delivery.md), per project, from outside. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'welcome.liquid': '<p>Hi</p>' })
})
afterAll(() => sandbox?.close())
beforeEach(async () => {
  await sandbox.clear()
  await fetch(`${sandbox.url}/_sandbox/api/suppressions`, { method: 'DELETE' })
})

const OTHER_TOKEN = 'sandbox_other_project_token'

interface Suppression {
  address: string
  project: string
  reason: string
  createdAt: string
  messageId?: string
}

async function send(to: string, token = TOKEN): Promise<string> {
  const response = await sandbox.send(
    { template: 'welcome', from: 'hello@acme.test', to, subject: 'Hi' },
    token,
  )
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

async function settled(to: string, status: string) {
  return sandbox.waitForMessage({ to, status: status as never, timeout: 5000 })
}

const list = async (query = ''): Promise<{ suppressions: Suppression[]; total: number }> => {
  const response = await fetch(`${sandbox.url}/_sandbox/api/suppressions${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as never
}

describe('the suppression list', () => {
  it('its life: a bounce adds, a send to it is suppressed (still 201), DELETE takes it off, the next send is delivered', async () => {
    const id = await send('Ada <Ada+Bounce@Example.com>')
    const bounced = await settled('ada+bounce@example.com', 'bounced')
    const [entry] = (await list()).suppressions
    expect(entry).toEqual({
      address: 'ada+bounce@example.com',
      project: bounced.project,
      reason: 'bounced',
      createdAt: bounced.recipients[0]!.events[1]!.at,
      messageId: id,
      // The message's subject, while the log has it: the inbox shows it instead of the id.
      subject: 'Hi',
    })

    await send('ada+bounce@example.com')
    await settled('ada+bounce@example.com', 'suppressed')

    const removed = await fetch(
      `${sandbox.url}/_sandbox/api/suppressions/${encodeURIComponent('ADA+bounce@example.com')}`,
      { method: 'DELETE' },
    )
    expect(removed.status).toBe(204)
    expect((await list()).total).toBe(0)

    // Off the list, the address's own outcome applies again.
    await sandbox.clear()
    await send('ada+bounce@example.com')
    await settled('ada+bounce@example.com', 'bounced')
    expect((await list()).total).toBe(1)
  })

  it('is there the moment the bounce is: whoever sees the state sees the suppression', async () => {
    for (let i = 0; i < 5; i++) {
      const to = `now${i}+bounce@example.com`
      await send(to)
      // Resolves as soon as the record reads bounced (even from the list, before the event).
      await settled(to, 'bounced')
      expect((await sandbox.suppressions({ address: to })).map((s) => s.address)).toEqual([to])
    }
  })

  it('a complaint adds the address too, with reason complained', async () => {
    await send('grace+spam@example.com')
    await settled('grace+spam@example.com', 'complained')
    expect((await list()).suppressions.map((s) => [s.address, s.reason])).toEqual([
      ['grace+spam@example.com', 'complained'],
    ])
  })

  it("is per project: another token's sends to the address are not suppressed", async () => {
    await send('bob+bounce@example.com')
    await settled('bob+bounce@example.com', 'bounced')
    await sandbox.clear()
    await send('bob+bounce@example.com', OTHER_TOKEN)
    const other = await settled('bob+bounce@example.com', 'bounced')
    expect(other.recipients[0]!.status).toBe('bounced')
    const all = (await list()).suppressions
    expect(all).toHaveLength(2)
    expect(new Set(all.map((s) => s.project)).size).toBe(2)
    expect((await list(`?project=${other.project}`)).suppressions.map((s) => s.project)).toEqual([
      other.project,
    ])
    // Removing for one project leaves the other's.
    expect(
      (
        await fetch(
          `${sandbox.url}/_sandbox/api/suppressions/bob+bounce@example.com?project=${other.project}`,
          { method: 'DELETE' },
        )
      ).status,
    ).toBe(204)
    expect((await list()).suppressions.map((s) => s.project)).not.toContain(other.project)
    expect((await list()).total).toBe(1)
  })

  it("newest first; GET one address; DELETE all (or a project's)", async () => {
    for (const to of ['a+bounce@example.com', 'b+bounce@example.com', 'c+complaint@example.com']) {
      await send(to)
      await settled(to, to.includes('complaint') ? 'complained' : 'bounced')
    }
    expect((await list()).suppressions.map((s) => s.address)).toEqual([
      'c+complaint@example.com',
      'b+bounce@example.com',
      'a+bounce@example.com',
    ])
    const one = await fetch(`${sandbox.url}/_sandbox/api/suppressions/b%2Bbounce%40example.com`)
    expect(one.status).toBe(200)
    expect(
      ((await one.json()) as { suppressions: Suppression[] }).suppressions.map((s) => s.address),
    ).toEqual(['b+bounce@example.com'])
    expect(
      (
        await fetch(`${sandbox.url}/_sandbox/api/suppressions?project=ffffffff`, {
          method: 'DELETE',
        })
      ).status,
    ).toBe(204)
    expect((await list()).total).toBe(3)
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/suppressions`, { method: 'DELETE' })).status,
    ).toBe(204)
    expect((await list()).total).toBe(0)
  })

  it('clearing the messages leaves the list alone', async () => {
    await send('d+bounce@example.com')
    await settled('d+bounce@example.com', 'bounced')
    expect((await fetch(`${sandbox.url}/_sandbox/api/messages`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await list()).total).toBe(1)
  })

  it('an address that is not on the list is 404 suppression_not_found', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${sandbox.url}/_sandbox/api/suppressions/nobody@example.com`, {
        method,
      })
      expect(response.status, method).toBe(404)
      const error = await errorOf(response)
      expect(error.code).toBe('suppression_not_found')
      expect(error.message).toContain('nobody@example.com')
    }
    const wrong = await fetch(`${sandbox.url}/_sandbox/api/suppressions`, { method: 'POST' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET, DELETE, HEAD')
  })

  it('sandbox.suppressions() and sandbox.unsuppress() from a test suite', async () => {
    await send('e+hardbounce@example.com')
    await settled('e+hardbounce@example.com', 'bounced')
    expect((await sandbox.suppressions()).map((s) => s.address)).toEqual([
      'e+hardbounce@example.com',
    ])
    expect(
      (await sandbox.unsuppress({ address: 'E+HARDBOUNCE@example.com' })).map((s) => s.address),
    ).toEqual(['e+hardbounce@example.com'])
    expect(await sandbox.suppressions()).toEqual([])
  })
})
