import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import * as entities from 'entities'
import fc from 'fast-check'
import { parseDocument } from 'htmlparser2'
import type { DomNode, FormatCallback } from 'html-to-text'
import { describe, expect, it } from 'vitest'
import { htmlToTextAlone, PLAIN_TEXT_OPTIONS, toPlainText } from '../../src/templates/plain-text.js'
import { parseTextDom, type TextDomNode } from '../../src/templates/text-dom.js'
import { engineOf, formatPicker, treeConverter } from '../../src/templates/text-walk.js'
import { corpusHtml, hasCorpus, SOURCES } from '../email-corpus/corpus.js'
import { ROOT } from '../helpers/cli.js'

/**
 * The text part read over sendbox's own tree (src/templates/text-dom.ts, text-walk.ts) is
 * html-to-text's, byte for byte: the tree is htmlparser2's, node for node, wherever the reader
 * does not give up; each element's format is the one selderee picks; and the text is what
 * html-to-text alone makes of the same HTML. Held on the example templates, every HTML sample of
 * test/golden, the corpus of real emails, and random documents made of the pieces email HTML is
 * made of (and broken ones).
 */

/** A tree as plain data: what both trees are compared by. */
type Plain =
  | { type: string; data: string }
  | {
      type: string
      name: string
      attribs: Record<string, string>
      children: Plain[]
      parent: string | undefined
    }

function plain(nodes: readonly (TextDomNode | DomNode)[]): Plain[] {
  return nodes.map((node) => {
    const n = node as {
      type: string
      data?: string
      name?: string
      attribs?: Record<string, string>
      children?: (TextDomNode | DomNode)[]
      parent?: { name?: string } | null
    }
    if (n.type === 'tag' || n.type === 'script' || n.type === 'style')
      return {
        type: n.type,
        name: n.name!,
        attribs: { ...n.attribs },
        children: plain(n.children ?? []),
        // htmlparser2's top-level elements are in its document, which has no name.
        parent: n.parent?.name,
      }
    return { type: n.type, data: n.data ?? '' }
  })
}

const htmlparser2Tree = (html: string) =>
  plain(parseDocument(html, { decodeEntities: true }).children as DomNode[])

/**
 * Every HTML a send makes of the repository's templates and fixture cases (test/golden's
 * rendered.json, which test/golden/rendered.test.ts holds to what they render), and the golden samples.
 */
function repositoryHtml(): string[] {
  const golden = join(ROOT, 'test/golden')
  const rendered = JSON.parse(readFileSync(join(golden, 'rendered.json'), 'utf8')) as {
    templates: Record<string, { html: string }>
  }
  const samples = JSON.parse(readFileSync(join(golden, 'html-samples.json'), 'utf8')) as Record<
    string,
    string
  >
  return [...Object.values(rendered.templates).map((r) => r.html), ...Object.values(samples)]
}

const corpus = () => (hasCorpus ? SOURCES.emails.map(corpusHtml) : [])

/** The pieces random documents are made of: email HTML's, and the odd and broken kinds. */
const NAMES = ['p', 'div', 'span', 'a', 'b', 'table', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot']
  .concat(['ul', 'ol', 'li', 'h1', 'h2', 'h4', 'br', 'img', 'hr', 'body', 'html', 'head', 'center'])
  .concat(['font', 'strong', 'blockquote', 'pre', 'wbr', 'SPAN', 'TD', 'Table', 'input', 'select'])
  .concat(['option', 'dd', 'dt', 'svg', 'o:p', 'v:rect', 'x-y', 'section', 'button', 'textarea'])
const VALUES = ['preheader', 'x preheader', 'x\tpreheader', 'x\npreheader', 'display:none']
  .concat(['DISPLAY: NONE;color:red', 'mso-hide:all', 'https://a.test/?a=1&amp;b=2', '', 'a>b'])
  .concat([
    '&quot;x&quot;',
    '&amp',
    '&notin;',
    '&#x41;&#65',
    'Preheader',
    '#top',
    'mailto:a@b.test',
  ])
const attribute = fc
  .tuple(
    fc.constantFrom('class', 'style', 'href', 'hidden', 'id', 'ALIGN', 'data-x', 'colspan', 'src'),
    fc.constantFrom(...VALUES),
    fc.constantFrom('"', "'", '', 'none'),
    fc.constantFrom(' ', '\n', '  ', '/', ' / '),
  )
  .map(([name, value, quote, space]) => {
    if (quote === 'none') return `${space}${name}`
    if (quote === '' && /[\s>"'=<`]|^$/.test(value)) return `${space}${name}="${value}"`
    const v =
      quote === '"' ? value.replaceAll('"', '') : quote === "'" ? value.replaceAll("'", '') : value
    return `${space}${name}=${quote}${v}${quote}`
  })
const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'Hello',
      ' ',
      '\n  ',
      'Ada Lovelace',
      '&amp;',
      '&nbsp;',
      '&lt',
      '&#39;',
      '&copy',
      'a < b',
      '5 > 3',
      '&',
      'x&y',
      'é',
      '→',
      '&#x1F600;',
      'Total 42.00',
      'code 482913',
      'averyveryverylongwordthatgoesonandonandonandonandonandonandonandonandonandon',
    ),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...NAMES),
        fc.array(attribute, { maxLength: 3 }),
        fc.constantFrom('>', '/>', ' >', '>'),
      )
      .map(([name, attrs, end]) => `<${name}${attrs.join('')}${end}`),
  },
  { weight: 5, arbitrary: fc.constantFrom(...NAMES).map((name) => `</${name}>`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<!-- c -->',
      '<!--[if mso]><table><tr><td><![endif]-->',
      '<!--[if !mso]><!-->',
      '<!--<![endif]-->',
      '<!-->',
      '<!--->',
      '<!---->',
      '<!-- a --->',
      '<!DOCTYPE html>',
      '<?xml version="1.0"?>',
      '<![endif]>',
      '<![CDATA[x]]>',
      '<style>p{color:red}</style>',
      '<script>if (a<b) x("</div>")</script>',
      '<title>A &amp; B</title>',
      '<style/>',
      '<style>',
      '<div class="x',
      '<a href=',
      '<',
      '</ b>',
      '</>',
      '</b foo>',
      '</br>',
      '</p>',
      '</img>',
      '<svg><rect/></svg>',
      '<a href=x/>',
      '<a b=c d>',
      '<a b=>',
      '<tr style= >',
      '<a b=',
      '<![if !mso]>',
      '<![CDA>',
      '<a href=<x>',
      '<a@b>',
      '<p\tclass=x>',
      '<STYLE>a</style >',
      '<textarea><b>x</b></textarea>',
      '<xmp><p></xmp>',
      '<br/>',
      '<td/>',
      '<p/>',
      '\u000f',
      '<style>\u001c/style></style>',
    ),
  },
)
const documents = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''))

describe('parseTextDom', () => {
  it('reads every example template, fixture case and golden sample, as htmlparser2 does', () => {
    for (const html of repositoryHtml()) {
      const tree = parseTextDom(html, entities)
      expect(tree, html.slice(0, 200)).not.toBeNull()
      expect(plain(tree!)).toEqual(htmlparser2Tree(html))
    }
  })

  it.skipIf(!hasCorpus)(
    'reads the corpus of real emails as htmlparser2 does, most of them at all',
    () => {
      let read = 0
      const emails = corpus()
      for (const html of emails) {
        const tree = parseTextDom(html, entities)
        if (!tree) continue
        read++
        expect(plain(tree)).toEqual(htmlparser2Tree(html))
      }
      // What it gives up on (CDATA, SVG, …) is the rare email: it reads all 89 of the npm corpus
      // (E-Com Plus's `<tr style=>` and mailgen's `<![if !mso]>` among them).
      expect(read / emails.length).toBeGreaterThan(0.9)
    },
  )

  it('builds the tree htmlparser2 builds of random documents, wherever it does not give up', () => {
    let read = 0
    let runs = 0
    fc.assert(
      fc.property(documents, (html) => {
        runs++
        const tree = parseTextDom(html, entities)
        if (!tree) return
        read++
        expect(plain(tree)).toEqual(htmlparser2Tree(html))
      }),
      { numRuns: 3000 },
    )
    // Not a test of its giving up: most random documents are read.
    expect(read / runs).toBeGreaterThan(0.3)
  })

  it.each([
    ['a CDATA section', '<p><![CDATA[x]]></p>'],
    ['SVG, where `/>` closes', '<svg><rect/></svg>'],
    ['`</` and no letter', '<p>a</ p>'],
    ['a comment that ends where it starts', '<p><!-->a</p>'],
    ['a tag cut off', '<p class="x'],
    ['a comment cut off', '<p><!-- a'],
    ['a raw-text element cut off', '<style>p{}'],
    ['a raw-text element written `<style/>`', '<style/><p>a</p>'],
    ['a name with other characters', '<a@b>x</a@b>'],
    ['an unquoted value starting with `<`', '<a href=<x>y</a>'],
    ['a control character where htmlparser2 reads it as `/`', '<style>a<\u000fstyle></style>'],
  ])('gives up on %s', (_, html) => {
    expect(parseTextDom(html, entities)).toBeNull()
  })

  it('joins text across a closing tag that closes nothing, as domhandler does', () => {
    expect(parseTextDom('<p>a</b>c</p>', entities)).toEqual([
      {
        type: 'tag',
        name: 'p',
        attribs: {},
        children: [{ type: 'text', data: 'ac' }],
        parent: null,
      },
    ])
  })
})

/**
 * html-to-text's own builder, as a formatter is handed it, compiled with the server's options and
 * `variant`'s: its picker is selderee's.
 */
function htmlToTextBuilder(variant: import('html-to-text').HtmlToTextOptions = {}) {
  const require = createRequire(import.meta.url)
  const { compile } = require('html-to-text') as typeof import('html-to-text')
  let builder: Parameters<FormatCallback>[2] | undefined
  const capture: FormatCallback = (_elem, _walk, b) => {
    builder = b
  }
  const formatters = { ...PLAIN_TEXT_OPTIONS.formatters, emailTable: capture }
  compile({ ...PLAIN_TEXT_OPTIONS, ...variant, formatters })('<table></table>')
  expect(builder, 'the first table hands its builder to emailTable').toBeDefined()
  return builder as NonNullable<typeof builder> & {
    options: import('html-to-text').HtmlToTextOptions
    picker: { pick1(el: unknown): unknown }
  }
}

function* elementsOf(nodes: readonly DomNode[]): Generator<DomNode> {
  for (const node of nodes) {
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue
    yield node
    yield* elementsOf(node.children ?? [])
  }
}

describe('the text part', () => {
  const builder = htmlToTextBuilder()
  const pick = formatPicker(builder.options.selectors ?? [])!
  const alone = htmlToTextAlone()

  it("picks each element's format as selderee does", () => {
    const documentsToPick = [...repositoryHtml(), ...corpus(), ...fc.sample(documents, 500)]
    let picked = 0
    for (const html of documentsToPick)
      for (const el of elementsOf(parseDocument(html).children as DomNode[])) {
        picked++
        expect(pick(el as never)).toBe(builder.picker.pick1(el))
      }
    expect(picked).toBeGreaterThan(5000)
  })

  it("is html-to-text's, byte for byte: the repository, the corpus, random documents", () => {
    for (const html of [...repositoryHtml(), ...corpus()])
      expect(toPlainText(html)).toBe(alone(html))
    fc.assert(
      fc.property(documents, (html) => {
        expect(toPlainText(html)).toBe(alone(html))
      }),
      { numRuns: 2000 },
    )
  })

  it('is html-to-text alone where its options are not ones the walk follows', () => {
    const variants = [
      { limits: { maxDepth: 3 } },
      { limits: { maxChildNodes: 2 } },
      { baseElements: { selectors: ['main'] } },
      { selectors: [...PLAIN_TEXT_OPTIONS.selectors!, { selector: 'div > p', format: 'skip' }] },
      { selectors: [...PLAIN_TEXT_OPTIONS.selectors!, { selector: '#id', format: 'skip' }] },
    ]
    for (const variant of variants)
      expect(treeConverter(engineOf(htmlToTextBuilder(variant)))).toBeNull()
  })

  it('follows the options the server uses', () => {
    expect(treeConverter(engineOf(builder))).not.toBeNull()
  })
})
