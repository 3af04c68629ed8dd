import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { removeRunnerProjects, runInProject, runnerProject } from '../recipes/runner-project.js'
import { CHROMIUM, hasChromium } from './helpers.js'

/**
 * sendbox/playwright for real (docs/testing.md#playwright-sendboxplaywright): a Playwright Test suite in a project of its own, in
 * Debian's Chromium (Playwright downloads none), tests running in parallel, each with its own
 * inbox, against a tiny app that sends through the HTTP API: type the code, follow the link.
 */

afterAll(removeRunnerProjects)

describe.skipIf(!hasChromium)('test-runner fixtures in Chromium', () => {
  it('sendbox/playwright: parallel tests in Chromium, each with its own inbox', async () => {
    const dir = await runnerProject('playwright', [
      '@playwright/test',
      'playwright',
      'playwright-core',
    ])
    const result = await runInProject(
      [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter', 'list'],
      dir,
      { CHROMIUM_PATH: CHROMIUM },
    )
    expect(result.output).toMatch(/3 passed/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})
