import { describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { checkEmail } from '../../src/checks/index.js'
import { createTemplateCatalog, renderMessage } from '../../src/templates/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('the example templates', async () => {
  it('come out clean: no errors, no warnings', async () => {
    const catalog = await createTemplateCatalog({
      templatesDir: `${root}/templates`,
      fixturesDir: `${root}/fixtures`,
      watch: false,
    })
    try {
      for (const template of catalog.list()) {
        for (const fixture of catalog.fixtures(template.slug)) {
          const outcome = renderMessage(catalog, template.slug, fixture.variables!, {
            lenient: false,
          })
          if (!outcome.ok)
            throw new Error(`${template.slug}/${fixture.name}: ${outcome.failure.code}`)
          const { rendered } = outcome
          const report = await checkEmail({ html: rendered.html, text: rendered.text })
          const problems = report.findings
            .filter((f) => f.severity !== 'info')
            .map((f) => `${template.slug}/${fixture.name}: ${f.code} ${f.message}`)
          expect(problems).toEqual([])
        }
      }
    } finally {
      await catalog.close()
    }
  })
})
