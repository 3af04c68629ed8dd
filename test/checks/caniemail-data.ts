import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import vm from 'node:vm'

/** One feature of caniemail's data: its title, category and per-client support. */
export interface CaniemailFeature {
  title: string
  category: string
  /** `stats[family][platform]` → `{ version: 'y' | 'n' | 'a #1' … }`. */
  stats: Record<string, Record<string, Record<string, string>>>
}

/**
 * The caniemail data doiuse-email bundles, read from its own build (it exports no way to list
 * its features): the object literal after `var can_i_email_default =`, evaluated in an empty
 * context. The data the client check runs on, not a copy that could drift from it.
 */
export function caniemailFeatures(): CaniemailFeature[] {
  const entry = createRequire(import.meta.url).resolve('@jsx-email/doiuse-email')
  const source = readFileSync(join(dirname(entry), 'index.mjs'), 'utf8')
  const marker = 'var can_i_email_default = '
  const start = source.indexOf(marker) + marker.length
  const end = source.indexOf('\n};\n', start) + 2
  if (start < marker.length || end < start) throw new Error('caniemail data not found in doiuse')
  return (vm.runInNewContext(`(${source.slice(start, end)})`) as { data: CaniemailFeature[] }).data
}

/** Whether caniemail has any entry for a feature on a client (`thunderbird.macos`). */
export const knows = (feature: CaniemailFeature, client: string): boolean => {
  const [family, platform] = client.split('.')
  return feature.stats[family!]?.[platform!] !== undefined
}

/** The latest support entry of a feature on a client starts with "n": not supported. */
export const lacks = (feature: CaniemailFeature, client: string): boolean => {
  const [family, platform] = client.split('.')
  const versions = feature.stats[family!]?.[platform!]
  if (!versions) return false
  const latest = Object.keys(versions).sort().at(-1)!
  return versions[latest]!.startsWith('n')
}

/**
 * One email that uses every feature it can, read the way doiuse-email detects them: every CSS
 * property, value, function and unit in one element's `style` (and again in a `<style>` rule,
 * with every selector and at-rule), every element, and every attribute on one element.
 */
export function everyFeatureHtml(features: CaniemailFeature[]): string {
  const declarations: string[] = []
  const selectors: string[] = []
  const atRules: string[] = []
  const tags: string[] = []
  const attributes: string[] = []
  for (const { title, category } of features) {
    if (category === 'css') cssUse(title, { declarations, selectors, atRules })
    else if (category === 'html') htmlUse(title, { tags, attributes })
  }
  // The selector kinds: sibling, attribute, chained, child, id, universal, descendant, grouped.
  selectors.push('a + b', '[data-x]', '.a.b', 'a > b', '#x', 'a ~ b', '*', 'a b')
  tags.push('<article></article><map></map><!-- a comment -->')
  const style = declarations.join('; ').replaceAll('"', "'")
  return [
    '<!doctype html>',
    '<html lang="en"><head><title>Every feature</title>',
    `<style>${atRules.join('\n')}\n${selectors.join(', ')} { ${declarations.join('; ')} }</style>`,
    '</head><body>',
    `<div style="${style}" ${attributes.join(' ')}>Every feature</div>`,
    ...tags,
    '<a href="#top">Top</a> <a href="mailto:a@acme.test">Mail</a>',
    '</body></html>',
  ].join('\n')
}

function cssUse(
  title: string,
  into: { declarations: string[]; selectors: string[]; atRules: string[] },
): void {
  const bare = title.trim().replace(/ (?:shorthand|property|CSS property)$/, '')
  const pair = /([a-z-]+):\s*([a-z-]+)/.exec(title)
  if (title.startsWith('@')) into.atRules.push(`${title.split(',')[0]} { a { color: red } }`)
  else if (title.startsWith(':') || title.startsWith('::'))
    into.selectors.push(`a${title.replace('()', '(b)')}`)
  else if (pair) into.declarations.push(`${pair[1]}: ${pair[2]}`)
  else if (/^[a-z-]+$/.test(bare)) into.declarations.push(`${bare}: inherit`)
  else if (title.endsWith(' unit'))
    into.declarations.push(
      `width: ${title === 'initial unit' ? 'initial' : `1${title.slice(0, -5)}`}`,
    )
  else if (title.endsWith(' keyword')) into.declarations.push(`color: red ${title.slice(0, -8)}`)
  else if (title.includes('()'))
    for (const [, name] of title.matchAll(/([a-z-]+)\(\)/g))
      into.declarations.push(`width: ${name}(1px)`)
  else if (title.includes('Variables'))
    into.declarations.push('color: var(--brand)', '--brand: red')
  else
    for (const word of title.match(/[a-z][a-z-]*[a-z]/g) ?? [])
      into.declarations.push(`${word}: inherit`)
}

function htmlUse(title: string, into: { tags: string[]; attributes: string[] }): void {
  const tags = [...title.matchAll(/<(\w+)((?: \w+="\w+")?)>/g)]
  if (tags.length) for (const [, name, attrs] of tags) into.tags.push(`<${name}${attrs}></${name}>`)
  else if (/ attributes?$/.test(title))
    for (const name of title.replace(/ attributes?$/, '').split(' and '))
      into.attributes.push(`${name}="x"`)
  else
    into.tags.push(
      `<${title.split(' ')[0]!.toLowerCase()}></${title.split(' ')[0]!.toLowerCase()}>`,
    )
}
