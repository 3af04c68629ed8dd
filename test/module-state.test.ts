import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * ARCHITECTURE.md: no module-level state outside the context the composition root builds. Two
 * sandboxes in one process (a test suite starting several) must share nothing, and what one
 * serves must not depend on what another did. A module that keeps state at its top level is
 * refused here, unless it is on the list below with the reason it is no sandbox's state.
 *
 * What counts, kept simple (Biome formats the tree, so a top-level statement starts its line):
 * - a top-level `let` or `var`;
 * - a top-level `const` holding a `new Map`, `Set`, `WeakMap` or `WeakSet`, unless typed
 *   `ReadonlyMap`/`ReadonlySet` (then the compiler refuses any change to it).
 * Not caught: a top-level array or object literal that is then mutated, state in a class's
 * static fields. The inbox page (src/inbox/page/, TSX too) is held to it as well: its state is
 * made once by app.tsx and handed down (ARCHITECTURE.md, "The inbox page"), so a component test
 * makes its own.
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

/** `file: name` → why it is no sandbox's state. Keep it short; every entry must still exist. */
export const ALLOWED: Record<string, string> = {
  'api/address.ts: addresses':
    'the email-addresses module, loaded on first use (lazily, for start-up time); no data of its own',
  'checks/clients.ts: checker':
    'the email-client support tables, built on first use and read-only after: the same for every sandbox',
  'checks/styles.ts: sheets':
    "a bounded memo of a pure function (a <style> block's text → its compiled rules), each with the step meter of its matching, set anew before each email's boxes are worked out in one synchronous go: the same for every sandbox",
  'checks/styles.ts: colours':
    "a bounded memo of a pure function (a colour's text → its RGBA, frozen): the same for every sandbox",
  'checks/styles.ts: inlineStyles':
    "a bounded memo of a pure function (a style attribute's text → the declarations read): the same for every sandbox",
  'templates/plain-text.ts: converter':
    'the html-to-text converter, built on first use (lazily, for start-up time); stateless after',
  'lib/ids.ts: next':
    "the cursor into a pool of random bytes: the process's randomness, not a sandbox's state",
  'store/lock.ts: held':
    'the lock files this process holds, removed by one exit hook: process-wide by nature',
  'store/lock.ts: exitHookInstalled': 'that one exit hook, installed once per process',
  'store/size.ts: sizes':
    'a WeakMap memo of a pure function of a record (records never change): entries go with their records',
  'store/record-json.ts: fresh':
    'a WeakMap memo of the JSON line of a record (records never change): entries go with their records',
}

const STATE = [
  {
    what: 'a top-level let/var',
    pattern: /^(?:export\s+)?(?:let|var)\s+(\w+)/gm,
  },
  {
    what: 'a top-level Map/Set/WeakMap/WeakSet (type it ReadonlyMap/ReadonlySet if it never changes)',
    pattern:
      /^(?:export\s+)?const\s+(\w+)\s*(?::\s*(?!Readonly(?:Map|Set)\b)[^=\s][^=]*)?=\s*new\s+(?:Map|Set|WeakMap|WeakSet)\b/gm,
  },
]

/** `file: name` of each piece of module-level state in a source text. */
export function moduleState(file: string, source: string): Array<{ key: string; what: string }> {
  const found: Array<{ key: string; what: string }> = []
  for (const { what, pattern } of STATE)
    for (const match of source.matchAll(pattern)) found.push({ key: `${file}: ${match[1]}`, what })
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

describe('module-level state', () => {
  it('recognises state, and leaves alone what cannot change', () => {
    const source = [
      'let count = 0',
      'export let shared: string | undefined',
      'const cache = new Map<string, string>()',
      'export const seen = new WeakMap<object, number>()',
      'const names: Set<string> = new Set()',
      "const KEYS: ReadonlySet<string> = new Set(['a'])",
      'const encoder = new TextEncoder()',
      'function f() {',
      '  let local = 1',
      '  const map = new Map()',
      '}',
    ].join('\n')
    expect(moduleState('x.ts', source).map((s) => s.key)).toEqual([
      'x.ts: count',
      'x.ts: shared',
      'x.ts: cache',
      'x.ts: seen',
      'x.ts: names',
    ])
  })

  it('src/ keeps none outside the context, but for the listed exceptions', () => {
    const found = sourceFiles(SRC)
      .map((path) => relative(SRC, path).split(sep).join('/'))
      .flatMap((file) => moduleState(file, readFileSync(join(SRC, file), 'utf8')))
    const refused = found.filter((s) => !(s.key in ALLOWED)).map((s) => `${s.key} (${s.what})`)
    expect(refused, 'move it into the AppContext that src/server/ builds').toEqual([])
    const stale = Object.keys(ALLOWED).filter((key) => !found.some((s) => s.key === key))
    expect(stale, 'exceptions that no longer exist: remove them from the list').toEqual([])
  })
})
