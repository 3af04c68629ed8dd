import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The accessibility corpus (test/fixtures/a11y/): emails each with one known problem,
 * `<name>.html`, and a clean twin, `<name>.clean.html`, that differs only by the fix. `code`,
 * `line` and `column` are the one finding sendbox gives the problem (the element's start tag in
 * the HTML); `axe` is the axe-core rule that flags the same thing, for the rules both have
 * (test/browser/a11y-agreement.test.ts), else null.
 */
export interface CorpusCase {
  name: string
  code: string
  line: number
  column: number
  axe: string | null
}

export const CORPUS: CorpusCase[] = [
  { name: 'img-missing-alt', code: 'img_missing_alt', line: 14, column: 1, axe: 'image-alt' },
  { name: 'link-missing-text', code: 'link_missing_text', line: 14, column: 1, axe: 'link-name' },
  { name: 'vague-link-text', code: 'vague_link_text', line: 14, column: 18, axe: null },
  { name: 'missing-lang', code: 'missing_lang', line: 2, column: 1, axe: 'html-has-lang' },
  { name: 'missing-title', code: 'missing_title', line: 3, column: 1, axe: 'document-title' },
  {
    name: 'layout-table-without-role',
    code: 'layout_table_without_role',
    line: 14,
    column: 1,
    axe: null,
  },
  // Text colour inline; on a bgcolor cell; from a <style> rule; inherited from a parent; a
  // link's default blue on a dark paragraph; 18 px bold (not yet large text) against 19 px.
  { name: 'low-contrast-inline', code: 'low_contrast', line: 14, column: 1, axe: 'color-contrast' },
  {
    name: 'low-contrast-bgcolor',
    code: 'low_contrast',
    line: 15,
    column: 27,
    axe: 'color-contrast',
  },
  {
    name: 'low-contrast-style-rule',
    code: 'low_contrast',
    line: 17,
    column: 1,
    axe: 'color-contrast',
  },
  {
    name: 'low-contrast-inherited',
    code: 'low_contrast',
    line: 15,
    column: 1,
    axe: 'color-contrast',
  },
  { name: 'low-contrast-link', code: 'low_contrast', line: 14, column: 63, axe: 'color-contrast' },
  {
    name: 'low-contrast-large-text',
    code: 'low_contrast',
    line: 14,
    column: 1,
    axe: 'color-contrast',
  },
  // The twin puts a background image behind the same text: its colour cannot be known, so
  // nothing is said (axe calls it "incomplete", not a violation).
  {
    name: 'low-contrast-under-image',
    code: 'low_contrast',
    line: 15,
    column: 1,
    axe: 'color-contrast',
  },
  { name: 'small-text', code: 'small_text', line: 14, column: 1, axe: null },
  { name: 'heading-order', code: 'heading_order', line: 14, column: 1, axe: null },
]

const DIR = join(import.meta.dirname, '..', 'fixtures', 'a11y')

/** The problem's HTML and its clean twin's. */
export const corpusHtml = (name: string) => ({
  problem: readFileSync(join(DIR, `${name}.html`), 'utf8'),
  clean: readFileSync(join(DIR, `${name}.clean.html`), 'utf8'),
})

/** The codes sendbox and axe share, both ways. */
export const AXE_RULE: Readonly<Record<string, string>> = {
  img_missing_alt: 'image-alt',
  link_missing_text: 'link-name',
  missing_lang: 'html-has-lang',
  missing_title: 'document-title',
  low_contrast: 'color-contrast',
}
