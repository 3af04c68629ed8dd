import { describe, expect } from 'vitest'
import { test } from 'sendbox/vitest'
import { startApp } from './app.js'

// Side by side: each test has its own inbox, so none sees another's mail.
describe.concurrent('emails a person acts on', () => {
  test('the password-reset email links to a page for that account', async ({ sandbox, inbox }) => {
    const app = await startApp(sandbox.url, sandbox.token)
    await fetch(`${app.url}/forgot`, {
      method: 'POST',
      body: new URLSearchParams({ email: inbox.address }),
    })

    const link = await inbox.waitForLink({ text: 'new password' })
    const page = await (await fetch(link)).text()
    expect(page).toContain(`Choose a new password for ${inbox.address}`)
    await app.close()
  })

  test('the sign-in code signs in', async ({ sandbox, inbox }) => {
    const app = await startApp(sandbox.url, sandbox.token)
    await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ email: inbox.address }),
    })

    const code = await inbox.waitForCode()
    const page = await fetch(`${app.url}/verify`, {
      method: 'POST',
      body: new URLSearchParams({ email: inbox.address, code }),
    })
    expect(await page.text()).toContain(`Signed in as ${inbox.address}`)
    await app.close()
  })

  test('a wrong code does not', async ({ sandbox, inbox }) => {
    const app = await startApp(sandbox.url, sandbox.token)
    await fetch(`${app.url}/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ email: inbox.address }),
    })

    const code = await inbox.waitForCode()
    const wrong = code === '000000' ? '111111' : '000000'
    const page = await fetch(`${app.url}/verify`, {
      method: 'POST',
      body: new URLSearchParams({ email: inbox.address, code: wrong }),
    })
    expect(await page.text()).toContain('Wrong code')
    await app.close()
  })

  test('every test has an inbox of its own', async ({ inbox }) => {
    expect(await inbox.messages()).toEqual([])
  })
})
