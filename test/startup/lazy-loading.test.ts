import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { childEnv, runCli, ROOT, startCli } from '../helpers/cli.js'
import { modulesInBundle } from '../helpers/bundles.js'
import { tempDir } from '../helpers/sandbox.js'

const RECORDER = fileURLToPath(new URL('./record-modules.mjs', import.meta.url))

/**
 * The modules a CLI run loaded: the files Node loaded, and the modules each of sendbox's bundles
 * (dist/sendbox*.js and *.cjs, which the CLI runs) was built from, which the bundler marks with a `// <path>` line.
 */
async function modulesLoadedBy(
  args: string[],
  { serve = false, nodeOptions = '' } = {},
): Promise<string[]> {
  const log = join(await tempDir(), 'modules.txt')
  const env = { NODE_OPTIONS: `--import=${RECORDER} ${nodeOptions}`, SENDBOX_MODULE_LOG: log }
  // A server runs until stopped: ready, then SIGTERM (it exits 0, and the recorder writes).
  const result = serve ? await (await startCli(args, { env })).stop() : await runCli(args, { env })
  expect(result.code, result.stderr).toBeLessThanOrEqual(1)
  const files = (await readFile(log, 'utf8')).split('\n')
  const bundled = files
    .filter((url) => /\/dist\/sendbox[^/]*\.c?js$/.test(url))
    .flatMap((url) => modulesInBundle(fileURLToPath(url)))
  expect(bundled.length, 'the bundles name the modules they hold').toBeGreaterThan(0)
  return [...files, ...bundled]
}

const SERVER_SIDE = ['/dist/server/', '/dist/inspector/', '/dist/api/', '/node_modules/h3/']

describe('bin/sendbox.js runs the CLI from the build that compiles least (src/lib/code-cache.ts)', () => {
  const cli = (loaded: string[]) =>
    loaded
      .filter((url) => /\/dist\/sendbox-cli\.c?js$/.test(url))
      .map((url) => url.replace(/.*\//, ''))

  it('its CommonJS bundles, with the code caches the build kept for this V8 and its flags', async () => {
    expect(
      cli(await modulesLoadedBy(['serve', '--port', '0', '--memory'], { serve: true })),
    ).toEqual(['sendbox-cli.cjs'])
  })

  it('its ES modules under V8 flags the caches were not made with, and it serves', async () => {
    const loaded = await modulesLoadedBy(['serve', '--port', '0', '--memory'], {
      serve: true,
      nodeOptions: '--max-old-space-size=300',
    })
    expect(cli(loaded)).toEqual(['sendbox-cli.js'])
    expect(loaded.some((url) => url.includes('/dist/server/index.js'))).toBe(true)
  })
})

describe('commands load only what they need', () => {
  for (const args of [
    ['--version'],
    ['--help'],
    [
      'render',
      'welcome',
      '--templates',
      join(ROOT, 'templates'),
      '--fixtures',
      join(ROOT, 'fixtures'),
    ],
  ]) {
    it(`sendbox ${args[0]} never loads the server`, async () => {
      const loaded = await modulesLoadedBy(args)
      expect(loaded.some((url) => url.endsWith('/dist/cli/index.js'))).toBe(true)
      expect(loaded.filter((url) => SERVER_SIDE.some((part) => url.includes(part)))).toEqual([])
    })
  }
})

/** The bundles `file` imports statically, itself included, through each other. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  const source = readFileSync(file, 'utf8')
  for (const [, path] of source.matchAll(/^(?:import|export) (?:.* from )?"(\.\/[^"]+)";$/gm))
    staticClosure(join(dirname(file), path!), seen)
  return seen
}

describe('what a start evaluates before it is ready', () => {
  it('the library bundle and what it imports statically hold no Liquid, yaml, compiler, h3 or route', () => {
    const modules = [...staticClosure(join(ROOT, 'dist/sendbox.js'))].flatMap(modulesInBundle)
    expect(modules.some((path) => path.endsWith('/dist/server/index.js'))).toBe(true)
    const later = [
      '/dist/templates/engine.js',
      '/dist/templates/compile.js',
      '/node_modules/yaml/',
      '/node_modules/h3/',
      '/dist/api/',
      '/dist/inspector/index.js',
    ]
    expect(later.filter((part) => modules.some((path) => path.includes(part)))).toEqual([])
  })
})

describe('yaml loads for a YAML file only', () => {
  it('sendbox --version never loads it (neither bundled nor from node_modules)', async () => {
    const loaded = await modulesLoadedBy(['--version'])
    expect(loaded.filter((url) => url.includes('/node_modules/yaml/'))).toEqual([])
  })
})

/** What only `sendbox mcp` needs: the MCP SDK, zod, and src/mcp. */
const MCP_SIDE = ['/node_modules/@modelcontextprotocol/', '/node_modules/zod/', '/dist/mcp/']

describe('the MCP server is loaded by sendbox mcp alone', () => {
  it('a default start (sendbox, serving) never loads the MCP SDK, zod or src/mcp', async () => {
    const loaded = await modulesLoadedBy(
      ['--port', '0', '--memory', '--templates', join(ROOT, 'templates')],
      { serve: true },
    )
    expect(loaded.some((url) => url.includes('/dist/server/'))).toBe(true)
    expect(loaded.filter((url) => MCP_SIDE.some((part) => url.includes(part)))).toEqual([])
  })

  it('sendbox mcp loads the SDK and never the server (stdin at its end: it stops at once)', async () => {
    const loaded = await modulesLoadedBy(['mcp', '--url', 'http://127.0.0.1:9'])
    expect(loaded.some((url) => url.includes('/dist/mcp/'))).toBe(true)
    expect(loaded.some((url) => url.includes('/node_modules/@modelcontextprotocol/sdk/'))).toBe(
      true,
    )
    expect(loaded.filter((url) => SERVER_SIDE.some((part) => url.includes(part)))).toEqual([])
  })
})

/** The modules a `serve` run loaded, up to its ready line and stop. */
async function modulesServeLoaded(args: string[]): Promise<string[]> {
  const log = join(await tempDir(), 'modules.txt')
  const cli = await startCli(['--port', '0', '--memory', ...args], {
    env: { NODE_OPTIONS: `--import=${RECORDER}`, SENDBOX_MODULE_LOG: log },
  })
  expect((await cli.stop()).code).toBe(0)
  const files = (await readFile(log, 'utf8')).split('\n')
  return [
    ...files,
    ...files
      .filter((url) => /\/dist\/sendbox[^/]*\.c?js$/.test(url))
      .flatMap((url) => modulesInBundle(fileURLToPath(url))),
  ]
}

describe('listhen and node-forge load only for HTTPS or a network host (#25)', () => {
  const lazy = (loaded: string[]) =>
    ['/node_modules/listhen/', '/node_modules/node-forge/'].filter((part) =>
      loaded.some((url) => url.includes(part)),
    )

  it('a default serve loads neither', async () => {
    expect(lazy(await modulesServeLoaded([]))).toEqual([])
  })

  it('serve --https loads both', async () => {
    expect(lazy(await modulesServeLoaded(['--https']))).toEqual([
      '/node_modules/listhen/',
      '/node_modules/node-forge/',
    ])
  })
})

describe('nodemailer loads only for a release', () => {
  it('serve with --relay and --relay-allow, but no release, never loads it', async () => {
    const loaded = await modulesServeLoaded([
      '--relay',
      'smtp://127.0.0.1:9',
      '--relay-allow',
      '*@example.com',
    ])
    expect(loaded.some((url) => url.includes('/dist/server/'))).toBe(true)
    expect(loaded.filter((url) => url.includes('/node_modules/nodemailer/'))).toEqual([])
  })
})

it('a server is ready before the text converter and the full address parser load; the converter loads right after, from one file', async () => {
  // In a child process, so what is loaded is the server's doing alone.
  const script = `
    import fs from 'node:fs'
    import { createRequire, syncBuiltinESMExports } from 'node:module'
    const files = () => Object.keys(createRequire(import.meta.url).cache)
    const loaded = (name) => files().some((file) => file.includes('/node_modules/' + name + '/'))
    // html-to-text and its ~40 CommonJS files, bundled into one (scripts/bundle.js) that is read
    // and run with its code cache (src/lib/code-cache.ts), not required: its read is the sign.
    const read = []
    const readFileSync = fs.readFileSync
    fs.readFileSync = (file, ...rest) => (read.push(String(file)), readFileSync(file, ...rest))
    syncBuiltinESMExports()
    const { startSendbox } = await import('sendbox')
    const converter = () => read.some((file) => file.endsWith('/dist/sendbox-html-to-text.cjs'))
    const sandbox = await startSendbox({ port: 0, memory: true, templates: ${JSON.stringify(join(ROOT, 'templates'))} })
    const atReady = converter() || loaded('html-to-text') || loaded('email-addresses')
    // The server loads the converter in a timer of 0 ms set once its app and templates are
    // loaded (an answer of the whole app means they are; health answers before, from an app of
    // its own): one timer turn (and the loading's I/O turn) after that is what "right after"
    // means; nothing announces it.
    await fetch(sandbox.url + '/_sandbox/api/messages')
    await new Promise((resolve) => setTimeout(resolve, 0))
    await new Promise((resolve) => setImmediate(resolve))
    console.log(JSON.stringify({ atReady, after: converter(), published: loaded('html-to-text') }))
    await sandbox.close()
  `
  expect(await lastLineOf(script)).toEqual({ atReady: false, after: true, published: false })
})

it('a server is ready before its app and Node’s fetch classes (undici) load; a request loads them', async () => {
  // In a child process, so what is loaded is the server's doing alone. `moduleLoadList` names
  // Node's own modules as they load.
  const script = `
    import { startSendbox } from 'sendbox'
    const undici = () => process.moduleLoadList.some((name) => name.includes('deps/undici'))
    const sandbox = await startSendbox({ port: 0, memory: true, templates: ${JSON.stringify(join(ROOT, 'templates'))} })
    const atReady = undici()
    const answer = await fetch(sandbox.url + '/_sandbox/api/health')
    console.log(JSON.stringify({ atReady, status: answer.status }))
    await sandbox.close()
  `
  expect(await lastLineOf(script)).toEqual({ atReady: false, status: 200 })
})

/** Runs an ES module script in a child process: the JSON of the last line it printed. */
async function lastLineOf(script: string): Promise<unknown> {
  const { execFile } = await import('node:child_process')
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: ROOT, env: childEnv() },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  )
  return JSON.parse(out.trim().split('\n').at(-1)!)
}
