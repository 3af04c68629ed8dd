import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The layering of ARCHITECTURE.md, enforced: each part of src/ may import only the parts listed
 * for it. Data flows one way — request → guard → validate → core → templates/store → events — so a
 * lower layer never imports a higher one, and route folders never import each other.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url))

const LOWEST = ['lib'] as const
const DOMAIN_LEAVES = ['templates', 'store', 'checks', ...LOWEST]
const BELOW_ROUTES = ['http', 'core', ...DOMAIN_LEAVES, 'version', 'package-root']

export const MAY_IMPORT: Record<string, readonly string[]> = {
  lib: [],
  // Top-level files, at the same depth as the bundles in dist/: see src/package-root.ts.
  'package-root': [],
  version: ['package-root'],
  templates: LOWEST,
  store: LOWEST,
  checks: LOWEST,
  core: DOMAIN_LEAVES,
  http: ['core', ...DOMAIN_LEAVES],
  api: BELOW_ROUTES,
  inspector: BELOW_ROUTES,
  inbox: BELOW_ROUTES,
  server: ['api', 'inspector', 'inbox', ...BELOW_ROUTES],
  // The test-suite client: inboxes and connectSendbox, over the domain's types and errors.
  client: ['core', 'store', 'lib'],
  index: ['server', 'client', ...BELOW_ROUTES],
  cli: ['index', 'mcp', ...BELOW_ROUTES],
  // The MCP server is a client of the inspector API, like the inbox page: nothing of the server.
  mcp: ['lib', 'version', 'package-root'],
  // The test-runner fixtures (sendbox/vitest, sendbox/playwright): a sandbox started or connected.
  vitest: ['index', 'client', ...BELOW_ROUTES],
  playwright: ['index', 'client', ...BELOW_ROUTES],
  // The inbox page is a browser program: its own modules, and only types from the server side.
  'inbox/client': [],
}
/** Type-only imports the browser client may make (erased at build time). */
const CLIENT_TYPES_FROM = ['store', 'checks', 'templates', 'core', 'inspector', 'api', 'lib']

/** Known exceptions, each with the issue that removes it. Keep this list empty. */
const EXCEPTIONS = new Set<string>([])

/** The part of src/ a file belongs to: its top folder, `inbox/client`, or a top-level file's name. */
export function partOf(file: string): string {
  const rel = relative(SRC, file).split(sep).join('/')
  if (rel.startsWith('inbox/client/')) return 'inbox/client'
  const [top] = rel.split('/')
  return top!.replace(/\.tsx?$/, '')
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    // TSX too: the inbox page's components.
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** The source file an import names: `./x.js` is `x.ts`, or `x.tsx` when that is the one there. */
export function sourceOf(file: string, spec: string): string {
  const ts = resolve(dirname(file), spec.replace(/\.js$/, '.ts'))
  return !existsSync(ts) && existsSync(`${ts}x`) ? `${ts}x` : ts
}

/** Relative imports of a file: static, `export … from`, and dynamic `import('…')`. */
export function importsOf(source: string): Array<{ spec: string; typeOnly: boolean }> {
  const found: Array<{ spec: string; typeOnly: boolean }> = []
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g
  for (const m of source.matchAll(pattern))
    found.push({ spec: (m[3] ?? m[4])!, typeOnly: Boolean(m[2]) })
  return found
}

export function violations(
  files: string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[] {
  const problems: string[] = []
  for (const file of files) {
    const from = partOf(file)
    const allowed = MAY_IMPORT[from]
    if (!allowed) {
      problems.push(
        `${relative(SRC, file)}: "${from}" is not a known part of src/; add it to ARCHITECTURE.md and this table`,
      )
      continue
    }
    for (const { spec, typeOnly } of importsOf(read(file))) {
      const target = sourceOf(file, spec)
      const to = partOf(target)
      if (to === from) continue
      if (from === 'inbox/client' && typeOnly && CLIENT_TYPES_FROM.includes(to)) continue
      const edge = `${relative(SRC, file).split(sep).join('/')} -> ${relative(SRC, target).split(sep).join('/')}`
      if (EXCEPTIONS.has(edge)) continue
      if (!allowed.includes(to))
        problems.push(`${edge}: "${from}" may not import "${to}" (ARCHITECTURE.md)`)
    }
  }
  return problems
}

describe('layering (ARCHITECTURE.md)', () => {
  it('no file imports a part of src/ its layer may not use', () => {
    expect(violations(sourceFiles(SRC))).toEqual([])
  })

  it('catches an upward import, a route folder importing another, and a client importing server code', () => {
    const files = [
      join(SRC, 'core/x.ts'),
      join(SRC, 'api/y.ts'),
      join(SRC, 'inbox/client/z.ts'),
      join(SRC, 'inbox/client/w.ts'),
      join(SRC, 'inbox/client/v.tsx'),
    ]
    const sources: Record<string, string> = {
      [files[0]!]:
        "import { route } from '../http/route.js'\nimport { isPlainObject } from '../lib/json.js'",
      [files[1]!]: "import { htmlAnswer } from '../inspector/html.js'",
      [files[2]!]: "const m = await import('../../store/index.js')",
      [files[3]!]: "import type { MessageRecord } from '../../store/types.js'",
      [files[4]!]: "import { checkEmail } from '../../checks/index.js'",
    }
    expect(violations(files, (f) => sources[f]!)).toEqual([
      'core/x.ts -> http/route.ts: "core" may not import "http" (ARCHITECTURE.md)',
      'api/y.ts -> inspector/html.ts: "api" may not import "inspector" (ARCHITECTURE.md)',
      'inbox/client/z.ts -> store/index.ts: "inbox/client" may not import "store" (ARCHITECTURE.md)',
      'inbox/client/v.tsx -> checks/index.ts: "inbox/client" may not import "checks" (ARCHITECTURE.md)',
    ])
  })

  it('every exception still exists (a removed one must leave the list)', () => {
    const edges = new Set(
      sourceFiles(SRC).flatMap((file) =>
        importsOf(readFileSync(file, 'utf8')).map(
          ({ spec }) =>
            `${relative(SRC, file).split(sep).join('/')} -> ${relative(SRC, sourceOf(file, spec))
              .split(sep)
              .join('/')}`,
        ),
      ),
    )
    for (const exception of EXCEPTIONS) expect(edges.has(exception), exception).toBe(true)
  })
})

/**
 * The domain holds rules and state; its files are reached through interfaces the composition
 * root hands in (the message store, the snapshot folder), so `core` imports no file-system module.
 */
const NO_FILE_SYSTEM = ['core']
/** Known exceptions, each with what removes it. Keep this list empty. */
const FILE_SYSTEM_EXCEPTIONS = new Set<string>([
  // Issue #37 item 4: command-line option parsing (it reads --config files) leaves core.
  'core/config.ts',
])
const FILE_SYSTEM_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"](?:node:)?fs(?:\/promises)?['"]|import\(\s*['"](?:node:)?fs(?:\/promises)?['"]\s*\)/

export function fileSystemImports(
  files: string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[] {
  return files
    .filter((file) => NO_FILE_SYSTEM.includes(partOf(file)))
    .map((file) => relative(SRC, file).split(sep).join('/'))
    .filter(
      (rel) => !FILE_SYSTEM_EXCEPTIONS.has(rel) && FILE_SYSTEM_IMPORT.test(read(join(SRC, rel))),
    )
}

describe('no file system in the domain (ARCHITECTURE.md)', () => {
  it('no file of src/core imports node:fs', () => {
    expect(fileSystemImports(sourceFiles(SRC))).toEqual([])
  })

  it('catches node:fs, its promises and a dynamic import, in core only', () => {
    const files = ['core/a.ts', 'core/b.ts', 'core/c.ts', 'core/d.ts', 'store/e.ts'].map((f) =>
      join(SRC, f),
    )
    const sources: Record<string, string> = {
      [files[0]!]: "import { readFile } from 'node:fs/promises'",
      [files[1]!]: "const fs = await import('fs')",
      [files[2]!]: "import path from 'node:path'\nimport { existsSync } from 'node:fs'",
      [files[3]!]: "import { fsync } from './fsync.js'",
      [files[4]!]: "import { readFile } from 'node:fs/promises'",
    }
    expect(fileSystemImports(files, (f) => sources[f]!)).toEqual([
      'core/a.ts',
      'core/b.ts',
      'core/c.ts',
    ])
  })

  it('every exception still imports it (a removed one must leave the list)', () => {
    for (const exception of FILE_SYSTEM_EXCEPTIONS)
      expect(FILE_SYSTEM_IMPORT.test(readFileSync(join(SRC, exception), 'utf8')), exception).toBe(
        true,
      )
  })
})

/** Import cycles among files (type-only imports count: they tie the files' meaning together). */
export function cycles(
  files: string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[][] {
  const known = new Set(files)
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(read(file))
        .map(({ spec }) => sourceOf(file, spec))
        .filter((to) => known.has(to)),
    ]),
  )
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    path.push(file)
    for (const to of edges.get(file) ?? []) {
      if (state.get(to) === 'open')
        found.push(path.slice(path.indexOf(to)).map((f) => relative(SRC, f).split(sep).join('/')))
      else if (!state.has(to)) visit(to)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (!state.has(file)) visit(file)
  return found
}

describe('no import cycles', () => {
  it('no file of src/ imports, through others, itself', () => {
    expect(cycles(sourceFiles(SRC))).toEqual([])
  })

  it('catches a cycle made of type imports', () => {
    const files = [join(SRC, 'core/a.ts'), join(SRC, 'core/b.ts'), join(SRC, 'core/c.ts')]
    const sources: Record<string, string> = {
      [files[0]!]: "import type { B } from './b.js'",
      [files[1]!]: "import { c } from './c.js'",
      [files[2]!]: "import type { A } from './a.js'",
    }
    expect(cycles(files, (f) => sources[f]!)).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts']])
  })
})
