import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

/**
 * docs/testing.md shows the runner recipes that runners.test.ts runs, verbatim; and no page's
 * example posts a form body it did not encode (URLSearchParams does).
 */

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

  it('builds no form body by interpolation: an address like ada+{id}@… would post a space', async () => {
    const pages = ['README.md', ...(await readdir(join(ROOT, 'docs'))).map((f) => `docs/${f}`)]
    for (const page of pages.filter((p) => p.endsWith('.md'))) {
      const text = await readFile(join(ROOT, page), 'utf8')
      expect(text.match(/body: `[^`]*=\$\{[^`]*`/g) ?? [], page).toEqual([])
    }
  })
})
