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
  // The options of startSendbox (which the CLI's flags become) checked into the settings the
  // domain reads: what the server, the library's surface and the CLI share.
  config: ['core', 'lib'],
  server: ['api', 'inspector', 'inbox', 'config', ...BELOW_ROUTES],
  // The test kit: inboxes and connectSendbox, over the domain's types and errors.
  testkit: ['core', 'store', 'lib'],
  index: ['server', 'testkit', 'config', ...BELOW_ROUTES],
  cli: ['index', 'mcp', 'config', ...BELOW_ROUTES],
  // The MCP server is a client of the inspector API, like the inbox page: nothing of the server.
  mcp: ['lib', 'version', 'package-root'],
  // The test-runner fixtures (sendbox/vitest, sendbox/playwright): a sandbox started or connected.
  vitest: ['index', 'testkit', 'config', ...BELOW_ROUTES],
  playwright: ['index', 'testkit', 'config', ...BELOW_ROUTES],
  // The inbox page is a browser program: its own modules, and only types from the server side.
  'inbox/page': [],
}
/** Type-only imports the inbox page may make (erased at build time). */
const PAGE_TYPES_FROM = ['store', 'checks', 'templates', 'core', 'inspector', 'api', 'lib']
/**
 * Files whose values the page may import, so that a server constant has one definition: each is
 * bundled into app.js, so each may itself import nothing but types (checked below).
 */
export const PAGE_VALUES_FROM = ['store/recipients.ts']

/**
 * What `sendbox mcp` shares with the server, one definition each: modules of constants and types
 * (the statuses, the simulated event types, the wait's limits), and the inspector's message
 * query parameters with the schema conversion of the document (its tools' arguments derive from
 * them); none imports h3 or a route, so it still loads nothing of the server
 * (test/startup/lazy-loading.test.ts).
 */
const MCP_SHARED: ReadonlySet<string> = new Set([
  'store/recipients.ts',
  'core/simulated-event-types.ts',
  'core/wait-types.ts',
  'http/param-schemas.ts',
  'http/message-query.ts',
  'http/json-schema.ts',
])

/** Known exceptions, each with the issue that removes it. Keep this list empty. */
const EXCEPTIONS = new Set<string>([])

/** The part of src/ a file belongs to: its top folder, `inbox/page`, or a top-level file's name. */
export function partOf(file: string): string {
  const rel = relative(SRC, file).split(sep).join('/')
  if (rel.startsWith('inbox/page/')) return 'inbox/page'
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
      if (from === 'inbox/page' && typeOnly && PAGE_TYPES_FROM.includes(to)) continue
      const rel = relative(SRC, target).split(sep).join('/')
      if (from === 'inbox/page' && PAGE_VALUES_FROM.includes(rel)) continue
      if (from === 'mcp' && MCP_SHARED.has(rel)) continue
      const edge = `${relative(SRC, file).split(sep).join('/')} -> ${rel}`
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
      join(SRC, 'inbox/page/z.ts'),
      join(SRC, 'inbox/page/w.ts'),
      join(SRC, 'inbox/page/v.tsx'),
      join(SRC, 'inbox/page/u.ts'),
    ]
    const sources: Record<string, string> = {
      [files[0]!]:
        "import { route } from '../http/route.js'\nimport { isPlainObject } from '../lib/json.js'",
      [files[1]!]: "import { htmlAnswer } from '../inspector/html.js'",
      [files[2]!]: "const m = await import('../../store/index.js')",
      [files[3]!]: "import type { MessageRecord } from '../../store/types.js'",
      [files[4]!]: "import { checkEmail } from '../../checks/index.js'",
      // A plain constant the page shares with the server: allowed (PAGE_VALUES_FROM).
      [files[5]!]: "import { MESSAGE_STATUSES } from '../../store/recipients.js'",
    }
    expect(violations(files, (f) => sources[f]!)).toEqual([
      'core/x.ts -> http/route.ts: "core" may not import "http" (ARCHITECTURE.md)',
      'api/y.ts -> inspector/html.ts: "api" may not import "inspector" (ARCHITECTURE.md)',
      'inbox/page/z.ts -> store/index.ts: "inbox/page" may not import "store" (ARCHITECTURE.md)',
      'inbox/page/v.tsx -> checks/index.ts: "inbox/page" may not import "checks" (ARCHITECTURE.md)',
    ])
  })

  it('what the page imports as values brings nothing else into its bundle: only type imports', () => {
    for (const file of PAGE_VALUES_FROM)
      expect(
        importsOf(readFileSync(join(SRC, file), 'utf8')).filter(({ typeOnly }) => !typeOnly),
        file,
      ).toEqual([])
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
 * The domain holds rules and state; its files, sockets and clients are reached through interfaces
 * the composition root hands in (the message store, the snapshot folder, the webhooks' poster,
 * the relay), so `core` imports no file-system, network or process module, nor their clients.
 */
const NO_FILE_SYSTEM = ['core']
/** Known exceptions, each with what removes it. Keep this list empty. */
const FILE_SYSTEM_EXCEPTIONS = new Set<string>([])
/** node:fs and its promises, sockets, HTTP, TLS, processes; undici, postgres, nodemailer, chokidar. */
const IO_MODULE = String.raw`(?:(?:node:)?(?:fs(?:\/promises)?|net|https?|tls|child_process)|undici|postgres|nodemailer|chokidar)`
const FILE_SYSTEM_IMPORT = new RegExp(
  String.raw`(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"]${IO_MODULE}['"]|import\(\s*['"]${IO_MODULE}['"]\s*\)`,
)

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

describe('no I/O in the domain (ARCHITECTURE.md)', () => {
  it('no file of src/core imports the file system, the network, a process or their clients', () => {
    expect(fileSystemImports(sourceFiles(SRC))).toEqual([])
  })

  it('catches node:fs, its promises and a dynamic import, in core only', () => {
    const files = [
      'core/a.ts',
      'core/b.ts',
      'core/c.ts',
      'core/d.ts',
      'store/e.ts',
      'core/f.ts',
    ].map((f) => join(SRC, f))
    const sources: Record<string, string> = {
      [files[0]!]: "import { readFile } from 'node:fs/promises'",
      [files[1]!]: "const fs = await import('fs')",
      [files[2]!]: "import path from 'node:path'\nimport { existsSync } from 'node:fs'",
      [files[3]!]: "import { fsync } from './fsync.js'\nconst u = await import('undici-types-not')",
      [files[4]!]: "import { readFile } from 'node:fs/promises'",
      [files[5]!]: "const { Agent } = await import('undici')",
    }
    expect(fileSystemImports(files, (f) => sources[f]!)).toEqual([
      'core/a.ts',
      'core/b.ts',
      'core/c.ts',
      'core/f.ts',
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
