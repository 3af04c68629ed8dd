import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/cli.js'
import { anchors } from './helpers/docs.js'

/**
 * The project's docs are its specification: a comment, a test name or a page points at the docs
 * page (and heading) that says a thing, never at a document the repository does not hold (the
 * spec it was first written against). And every `docs/<page>.md#<heading>` a source or test
 * file names exists, so those pointers do not rot when a heading is renamed.
 */

/** Every tracked text file, outside node_modules/ and dist/, with its text. */
function trackedFiles(): Array<{ file: string; text: string }> {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && !/^(node_modules|dist)\//.test(file))
    .filter((file) => existsSync(join(ROOT, file)))
    .map((file) => ({ file, buffer: readFileSync(join(ROOT, file)) }))
    .filter(({ buffer }) => !buffer.includes(0))
    .map(({ file, buffer }) => ({ file, text: buffer.toString('utf8') }))
}

/** `file:line: text` of each line where `pattern` matches. */
function linesMatching(files: Array<{ file: string; text: string }>, pattern: RegExp): string[] {
  return files.flatMap(({ file, text }) =>
    text
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  )
}

const MADE_UP: ReadonlySet<string> = new Set([
  'test/docs-links.test.ts',
  'test/helpers/docs.ts',
  'test/readme-examples.test.ts',
])

describe('references to the specification', () => {
  const files = trackedFiles()

  it('name no document outside the repository', () => {
    // Spelled in two parts, so this file does not name it either.
    const outside = new RegExp(['CON', 'TRACT'].join(''))
    expect(linesMatching(files, outside)).toEqual([])
  })

  it('name docs pages and headings that exist', () => {
    const missing: string[] = []
    const known = new Map<string, Set<string>>()
    for (const { file, text } of files) {
      // Markdown links: test/docs-links.test.ts; and the tests of the docs tests, whose
      // example pages are made up on purpose.
      if (file.endsWith('.md') || MADE_UP.has(file)) continue
      for (const [, page, anchor] of text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        const path = join(ROOT, 'docs', page!)
        if (!existsSync(path)) {
          missing.push(`${file}: docs/${page} does not exist`)
          continue
        }
        if (!anchor) continue
        if (!known.has(page!)) known.set(page!, anchors(readFileSync(path, 'utf8')))
        if (!known.get(page!)!.has(anchor)) missing.push(`${file}: docs/${page} has no #${anchor}`)
      }
    }
    expect(missing).toEqual([])
  })
})
