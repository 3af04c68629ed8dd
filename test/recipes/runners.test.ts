import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { removeRunnerProjects, runInProject, runnerProject } from './runner-project.js'

/**
 * sendbox/vitest for real (docs/testing.md#vitest-sendboxvitest): a Vitest suite in a project of its own, tests running
 * side by side, each with its own inbox, against a tiny app that sends through the HTTP API.
 * sendbox/playwright drives Chromium, so its suite is in the browser suite
 * (test/browser/playwright-runner.test.ts): `npm test` passes on a machine without one.
 */

afterAll(removeRunnerProjects)

describe('test-runner fixtures', () => {
  it('sendbox/vitest: concurrent tests, each with its own inbox, click the link and type the code', async () => {
    const dir = await runnerProject('vitest', ['vitest'])
    const result = await runInProject(
      [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose'],
      dir,
    )
    expect(result.output).toMatch(/4 passed/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})
