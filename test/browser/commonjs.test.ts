import { cp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/sandbox.js'
import { commonJsProjectWithTarball } from '../helpers/tarball.js'
import { runInProject } from '../recipes/runner-project.js'
import { CHROMIUM, hasChromium } from './helpers.js'

/**
 * sendbox/playwright in a CommonJS project, as `npm init -y` makes it: Playwright Test loads
 * specs there with `require` (a TypeScript spec's `import` compiled to it, or a `.js` spec's own
 * `require`), so the package's `exports` must give `require` a build of every subpath. The
 * package comes from `npm pack`, unpacked; the specs are the runner recipe's, and one in plain
 * CommonJS.
 */

const RUNNERS = join(import.meta.dirname, '..', 'recipes', 'runners')
let dir: string | undefined
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe.skipIf(!hasChromium)('sendbox/playwright in a CommonJS project', () => {
  it('runs TypeScript specs and a require() spec from the packed tarball', async () => {
    dir = await tempDir('sendbox-cjs-playwright-')
    const app = await commonJsProjectWithTarball(dir, [
      '@playwright/test',
      'playwright',
      'playwright-core',
    ])
    await cp(join(RUNNERS, 'templates'), join(app, 'templates'), { recursive: true })
    await cp(join(RUNNERS, 'app.ts'), join(app, 'app.ts'))
    await cp(join(RUNNERS, 'playwright'), app, { recursive: true })
    await writeFile(
      join(app, 'require.spec.js'),
      `const { test, expect } = require('sendbox/playwright')

test('a CommonJS spec gets a sandbox and an inbox', async ({ sandbox, inbox }) => {
  const response = await fetch(sandbox.url + '/messages', {
    method: 'POST',
    headers: { authorization: 'token ' + sandbox.token, 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'sign-in', from: 'Acme <hello@acme.test>', to: inbox.address,
      subject: 'Your code', templateVariables: { code: '246810' } }),
  })
  expect(response.status).toBe(201)
  expect(await inbox.waitForCode()).toBe('246810')
})
`,
    )
    const result = await runInProject(
      [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter', 'list'],
      app,
      { CHROMIUM_PATH: CHROMIUM },
    )
    expect(result.output).not.toContain('is not defined by "exports"')
    expect(result.output).toMatch(/4 passed/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})
