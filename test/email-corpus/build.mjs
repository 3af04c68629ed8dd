// Builds the corpus of real emails (see docs/checks.md, "The corpus of real emails") from clones
// of the repositories that sources.json names, at the commits it names:
//
//   node test/email-corpus/build.mjs REPOS OUT
//
// REPOS holds one git clone (or bare git directory) per repository, at REPOS/owner/name. OUT
// receives OUT/<collection>/<name>.html for each email, OUT/licences/<owner>+<name>/ with each
// repository's licence files, and OUT/SOURCES.json (sources.json with the licence files' places).
// Each email's template placeholders are rendered with plain sample values, so what is kept is
// what a user would send: block tags ({{#each}}, {% if %}, *|IF:…|*) are dropped and their
// content kept once; each value ({{name}}, {{{ url }}}, *|UNSUB|*, [type_of_action]) becomes a
// sample chosen by its name and by where it stands (a URL in href and src); relative image
// paths become absolute https:// URLs, as they would be in a message sent.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))

/** Block tags of Handlebars/Mustache, Jinja/Liquid and Mailchimp's merge language. */
const BLOCK_TAGS =
  /\{\{\s*[#/^!][^}]*\}\}|\{\{\s*else\s*\}\}|\{%[^%]*%\}|\{#[^#]*#\}|\*\|(?:IF|IFNOT|ELSEIF|ELSE|END):[^|]*\|\*/g
/**
 * Value placeholders: {{x}}, {{{x}}}, {{ x | filter }}, *|X|*, %x% and SendGrid's <%x%>,
 * [Snake_Case], href="[x]".
 */
const VALUES =
  /\{\{\{\s*([^}]+?)\s*\}\}\}|\{\{\s*([^}]+?)\s*\}\}|\*\|([^|*]+)\|\*|<?%([a-z][a-z_]*)%>?|\[(x|[A-Za-z]+(?:_[A-Za-z]+)+)\]|(?<=href=["'])\[([a-z]+)\]/g
/** True where the text before a placeholder is an open URL attribute. */
const IN_URL_ATTRIBUTE = /\b(?:href|src|background|action)\s*=\s*["']?[^"'\s>]*$/i
const IN_IMAGE_ATTRIBUTE = /\b(?:src|background)\s*=\s*["']?[^"'\s>]*$/i

const slug = (name) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')

/** A plain sample value for a placeholder named `raw`, standing after `before`. */
export function sampleValue(raw, before) {
  const name = raw
    .split('|')[0]
    .trim()
    .replace(/^this\./, '')
  const key = name.toLowerCase()
  if (IN_IMAGE_ATTRIBUTE.test(before)) return `https://example.com/images/${slug(name)}.png`
  if (IN_URL_ATTRIBUTE.test(before) || /url|link|href|unsub|archive|forward|profile/.test(key))
    return `https://example.com/${slug(name)}`
  if (/e-?mail/.test(key)) return 'ada@example.com'
  if (/first.?name|^fname$/.test(key)) return 'Ada'
  if (/last.?name|^lname$/.test(key)) return 'Lovelace'
  if (/city/.test(key)) return 'Springfield'
  if (/state/.test(key)) return 'IL'
  if (/zip|post.?code/.test(key)) return '62701'
  if (/address/.test(key)) return '1 Main Street'
  if (/company|product|sender|from|list:company/.test(key)) return 'Example Ltd'
  if (/name/.test(key)) return 'Ada Lovelace'
  if (/year/.test(key)) return '2026'
  if (/date|expir|time/.test(key)) return '28 November 2026'
  if (/amount|total|price|cost|balance/.test(key)) return '$42.00'
  if (/last.?four|last4/.test(key)) return '4242'
  if (/(^|_|\b)(id|number|code|qty|quantity)$/.test(key)) return '1042'
  if (key === 'x') return '3'
  if (/subject|title/.test(key)) return 'Your order has shipped'
  const words = name
    .replace(/^[A-Z]+:/, '')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase()
  return words ? words[0].toUpperCase() + words.slice(1) : 'Sample'
}

/** The email as a user would send it: placeholders rendered, image paths absolute. */
export function renderEmail(source, collection) {
  const html = source.replace(BLOCK_TAGS, '').replace(VALUES, (match, ...groups) => {
    const offset = groups.at(-2)
    const name = groups.slice(0, -2).find((g) => g !== undefined)
    return sampleValue(name, source.slice(Math.max(0, offset - 80), offset))
  })
  return html.replace(
    /(\b(?:src|background)\s*=\s*["'])(?!https?:|data:|cid:|\/\/|#|\s*["'])([^"']+)/gi,
    (_, attr, path) => `${attr}https://example.com/${collection}/${path.replace(/^\.?\//, '')}`,
  )
}

function main([repos, out]) {
  if (!repos || !out) {
    console.error('usage: node test/email-corpus/build.mjs REPOS OUT')
    process.exit(2)
  }
  const sources = JSON.parse(readFileSync(join(HERE, 'sources.json'), 'utf8'))
  const show = (repo, commit, path) =>
    execFileSync('git', ['-C', join(repos, repo), 'show', `${commit}:${path}`], {
      maxBuffer: 16 * 1024 * 1024,
    }).toString('utf8')
  const byName = new Map(sources.collections.map((c) => [c.collection, c]))
  for (const c of sources.collections) {
    const dir = join(out, 'licences', c.repo.replace('/', '+'))
    mkdirSync(dir, { recursive: true })
    for (const file of c.licenceFiles) writeFileSync(join(dir, file), show(c.repo, c.commit, file))
  }
  for (const e of sources.emails) {
    const c = byName.get(e.collection)
    mkdirSync(join(out, e.collection), { recursive: true })
    const html = renderEmail(show(c.repo, c.commit, e.path), e.collection)
    writeFileSync(join(out, e.collection, `${e.name}.html`), html)
  }
  writeFileSync(join(out, 'SOURCES.json'), `${JSON.stringify(sources, null, 2)}\n`)
  console.log(
    `${sources.emails.length} emails from ${sources.collections.length} collections in ${out}`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2))
