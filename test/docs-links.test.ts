import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, normalize } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './helpers/cli.js'
import { anchors, type DocFile, readDocs, slug } from './helpers/docs.js'

/**
 * Every link of README.md and docs/*.md resolves: a relative file exists, and an `#anchor` is
 * the GitHub slug of a heading in its target (or in the same file). Links inside code are not
 * links, and http(s) and mailto links are not checked (no network here).
 */

/** The text outside fenced blocks and inline code, line by line (so line numbers stay). */
function prose(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (marker?.startsWith(fence)) fence = undefined
      return ''
    }
    if (marker) {
      fence = marker
      return ''
    }
    // An inline code span, however many backticks open it, is not markup.
    return line.replace(/(`+)[\s\S]*?\1/g, '')
  })
}

/** Every link of the docs that does not resolve, as `file:line: target (why)`. */
export function brokenLinks(docs: DocFile[], root: string): string[] {
  const texts = new Map(docs.map((d) => [d.file, d.text]))
  const read = (file: string) => texts.get(file)
  const problems: string[] = []
  for (const { file, text } of docs) {
    prose(text).forEach((line, i) => {
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
        ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/g)].map((m) => m[1]!),
      ]
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
        const [path = '', anchor] = target.split('#', 2)
        const resolved = path ? normalize(join(dirname(file), decodeURI(path))) : file
        const where = `${file}:${i + 1}: ${target}`
        if (resolved.startsWith('..') || !existsSync(join(root, resolved))) {
          problems.push(`${where} (no file ${resolved})`)
          continue
        }
        if (anchor === undefined) continue
        if (!resolved.endsWith('.md')) {
          problems.push(`${where} (an anchor into ${resolved}, which is not Markdown)`)
          continue
        }
        // A target outside README and docs/ (ARCHITECTURE.md) is read from disk.
        const markdown = read(resolved) ?? readFileSync(join(root, resolved), 'utf8')
        if (!anchors(markdown).has(anchor))
          problems.push(`${where} (${resolved} has no heading #${anchor})`)
      }
    })
  }
  return problems
}

let docs: DocFile[]
beforeAll(async () => {
  docs = await readDocs()
})

describe('the links of README.md and docs/*.md', () => {
  it('every relative link names a file that exists, and every #anchor a heading there', () => {
    expect(docs.length).toBeGreaterThan(1)
    expect(brokenLinks(docs, ROOT)).toEqual([])
  })

  it('the README links into docs/, and every page of docs/ is linked from docs/README.md', () => {
    const readme = docs.find((d) => d.file === 'README.md')!.text
    expect(readme).toContain('](docs/README.md)')
    const index = docs.find((d) => d.file === 'docs/README.md')
    expect(index, 'docs/README.md, the index').toBeDefined()
    const pages = docs
      .map((d) => d.file)
      .filter((f) => f.startsWith('docs/') && f !== 'docs/README.md')
    const missing = pages.filter(
      (page) => !index!.text.includes(`](${page.slice('docs/'.length)})`),
    )
    expect(missing, 'pages docs/README.md does not list').toEqual([])
  })

  it("the README's and docs/README.md's lists of pages name each page once", () => {
    for (const file of ['README.md', 'docs/README.md']) {
      const text = docs.find((d) => d.file === file)!.text
      const listed = [...text.matchAll(/^- \[[^\]]+\]\(([^)#]+)\)/gm)].map((m) => m[1]!)
      const twice = listed.filter((page, i) => listed.indexOf(page) !== i)
      expect(twice, `${file} lists these pages twice`).toEqual([])
    }
  })
})

describe('the link check itself', () => {
  it('makes GitHub slugs', () => {
    expect(slug('Recipe: Python (and other languages)')).toBe('recipe-python-and-other-languages')
    expect(slug('`sendbox check`')).toBe('sendbox-check')
    expect(slug('Delivery: states, suppressions, webhooks')).toBe(
      'delivery-states-suppressions-webhooks',
    )
    expect(slug('The [inbox](inbox.md) **now**')).toBe('the-inbox-now')
    expect(slug('snake_case and Ünïcode')).toBe('snake_case-and-ünïcode')
    expect([...anchors('# A\n## A\n```sh\n# not a heading\n```\n### A')]).toEqual([
      'a',
      'a-1',
      'a-2',
    ])
  })

  it('reports a missing file, a missing anchor and an anchor into a non-Markdown file; ignores code and external links', () => {
    const docs: DocFile[] = [
      {
        file: 'README.md',
        text: [
          '# Top',
          'See [a](docs/a.md#part-one), [b](docs/b.md), [top](#top), [x](https://x.test/#nope).',
          'And [gone](docs/gone.md), [nope](docs/a.md#part-two), [own](#nowhere).',
          '`[in code](nowhere.md)`',
          '```md',
          '[in a block](nowhere.md)',
          '```',
          '[pkg](package.json#x)',
          '[ref]: docs/missing.md',
        ].join('\n'),
      },
      { file: 'docs/a.md', text: '# A\n\n## Part one\n\nBack to [the README](../README.md#top).' },
      { file: 'docs/b.md', text: '# B' },
    ]
    const exists = ['README.md', 'docs/a.md', 'docs/b.md', 'package.json']
    const problems = brokenLinksIn(docs, exists)
    expect(problems).toEqual([
      'README.md:3: docs/gone.md (no file docs/gone.md)',
      'README.md:3: docs/a.md#part-two (docs/a.md has no heading #part-two)',
      'README.md:3: #nowhere (README.md has no heading #nowhere)',
      'README.md:8: package.json#x (an anchor into package.json, which is not Markdown)',
      'README.md:9: docs/missing.md (no file docs/missing.md)',
    ])
  })
})

/** brokenLinks over an imaginary tree: the files in `exists` (written to a temp folder). */
function brokenLinksIn(docs: DocFile[], exists: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sendbox-links-'))
  try {
    for (const file of exists) {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      writeFileSync(join(dir, file), docs.find((d) => d.file === file)?.text ?? '{}')
    }
    return brokenLinks(docs, dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
