import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[]; failureSummary?: string }[]
}

/**
 * axe-core's serious and critical violations of the page (WCAG 2.1 A and AA, best practices),
 * one line each with the rule, the elements and what axe says to do. axe runs in the page (its
 * source evaluated: the page's CSP allows no injected script tag); the emails' frames are left out.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.evaluate(await readFile(AXE, 'utf8'))
  const violations = (await page.evaluate(() =>
    (
      window as unknown as {
        axe: { run(c: unknown, o: unknown): Promise<{ violations: unknown }> }
      }
    ).axe
      .run(document, {
        iframes: false,
        runOnly: {
          type: 'tag',
          values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
        },
      })
      .then((r) => r.violations),
  )) as AxeViolation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 4)
          .map(
            (n) =>
              `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join(' ').trim()}`,
          )
          .join('; ')}`,
    )
}
