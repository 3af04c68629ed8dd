import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

/** docs/testing.md shows the runner recipes that runners.test.ts runs, verbatim. */

const RECIPES = [
  'vitest/vitest.config.ts',
  'vitest/auth.spec.ts',
  'playwright/playwright.config.ts',
  'playwright/auth.spec.ts',
]

describe('docs/testing.md', () => {
  it('shows every runner recipe verbatim', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'testing.md'), 'utf8')
    for (const file of RECIPES) {
      const text = (await readFile(join(ROOT, 'test/recipes/runners', file), 'utf8')).trimEnd()
      expect(doc.includes(text), `docs/testing.md does not show ${file} verbatim`).toBe(true)
    }
  })
})
