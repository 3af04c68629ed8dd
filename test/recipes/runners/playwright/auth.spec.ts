import { expect, test } from 'sendbox/playwright'
import { type App, startApp } from './app.js'

// The app, per test, sending through this worker's sandbox.
const withApp = test.extend<{ app: App }>({
  app: async ({ sandbox }, use) => {
    const app = await startApp(sandbox.url, sandbox.token)
    await use(app)
    await app.close()
  },
})

withApp('sign in with the code from the email', async ({ page, app, inbox }) => {
  await page.goto(app.url)
  await page.getByLabel('Email', { exact: true }).fill(inbox.address)
  await page.getByRole('button', { name: 'Send me a code' }).click()

  await page.getByLabel('Code').fill(await inbox.waitForCode())
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('heading')).toHaveText(`Signed in as ${inbox.address}`)
})

withApp('reset the password from the link in the email', async ({ page, app, inbox }) => {
  await page.goto(app.url)
  await page.getByLabel('Email for a reset').fill(inbox.address)
  await page.getByRole('button', { name: 'Reset my password' }).click()
  await expect(page.getByRole('heading')).toHaveText('Check your email')

  await page.goto(await inbox.waitForLink({ text: 'new password' }))
  await expect(page.getByRole('heading')).toHaveText(`Choose a new password for ${inbox.address}`)
})

withApp('a wrong code does not sign in', async ({ page, app, inbox }) => {
  await page.goto(app.url)
  await page.getByLabel('Email', { exact: true }).fill(inbox.address)
  await page.getByRole('button', { name: 'Send me a code' }).click()

  const code = await inbox.waitForCode()
  await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('heading')).toHaveText('Wrong code')
})
