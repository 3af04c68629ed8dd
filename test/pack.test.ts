import { execFile } from 'node:child_process'
import { copyFile, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childEnv, ROOT } from './helpers/cli.js'
import { connectMcp, textOf } from './helpers/mcp.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'
import { v8Stamp } from '../src/lib/code-cache.js'

/**
 * The package as users get it: `npm pack`, installed into a fresh project from the tarball (its
 * dependencies come from the registry), then the CLI and the programmatic API run from there.
 * Slow (an npm install): SENDBOX_SKIP_PACK=1 skips it.
 */

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
  dependencies: Record<string, string>
}

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(
  command: string,
  args: string[],
  cwd: string,
  timeout = 60_000,
  extra: NodeJS.ProcessEnv = {},
): Promise<Run> {
  const env = {
    ...childEnv(extra),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  }
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env, timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        })
      },
    )
  })
}

const npm = (args: string[], cwd: string, timeout?: number) => run('npm', args, cwd, timeout)
// `--yes=false`: never fetch a package called "sendbox" from the registry; run the one installed from the tarball.
const npx = (args: string[], cwd: string) => run('npx', ['--yes=false', 'sendbox', ...args], cwd)

describe.skipIf(process.env.SENDBOX_SKIP_PACK === '1')(
  'the packed package (SENDBOX_SKIP_PACK=1 skips)',
  () => {
    let dir: string
    let app: string
    let tarball: string
    let files: string[]
    let packed: Run
    let installed: Run

    beforeAll(async () => {
      dir = await tempDir('sendbox-pack-')
      // With its scripts, as a user packs: `prepack` finds dist/ built from these sources by the
      // global test setup (which records them as `npm run build` does) and builds nothing, so no
      // file is rewritten under the feet of the other test files running meanwhile.
      const manifestBefore = await readFile(join(ROOT, 'package.json'), 'utf8')
      packed = await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT, 60_000, {
        SENDBOX_PACK_NO_BUILD: '1',
      })
      expect(packed.code, packed.stderr).toBe(0)
      expect(await readFile(join(ROOT, 'package.json'), 'utf8')).toBe(manifestBefore)
      const [info] = JSON.parse(packed.stdout) as Array<{
        filename: string
        size: number
        files: Array<{ path: string }>
      }>
      tarball = join(dir, info!.filename)
      files = info!.files.map((f) => f.path)

      app = join(dir, 'app')
      await mkdir(app)
      expect((await npm(['init', '-y'], app)).code).toBe(0)
      installed = await npm(['install', '--no-audit', '--no-fund', tarball], app, 170_000)
      expect(installed.code, installed.stderr).toBe(0)
    }, 180_000)

    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('holds only bin/, the bundles and types of dist/, templates/, fixtures/, docs/, README, package.json and LICENSE, and is small', async () => {
      const allowed =
        /^(bin\/|dist\/|templates\/|fixtures\/|docs\/|README\.md$|package\.json$|LICEN[CS]E(\.\w+)?$)/
      expect(files.filter((f) => !allowed.test(f))).toEqual([])
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([])
      // What tsc writes before the bundler is not loaded by anything: only the bundles ship.
      const unbundled = /^dist\/(?!sendbox[^/]*\.c?js$|inbox\/page\/).*\.js$/
      expect(files.filter((f) => unbundled.test(f))).toEqual([])
      expect(files).toContain('bin/sendbox.js')
      expect(files).toContain('dist/sendbox.js')
      expect(files).toContain('dist/sendbox.cjs')
      expect(files).toContain('dist/index.d.ts')
      expect(files).toContain('dist/inbox/page/app.js')
      expect(files).toContain('dist/inbox/page/app.css')
      expect(files).toContain('templates/welcome.liquid')
      expect(files).toContain('docs/https.md')
      const { size } = await stat(tarball)
      // Catches something big packed by mistake (a test folder, source maps), not a feature:
      // 1.04 MB with the ES modules alone, +41.6 KB for the accessibility checks (css-select,
      // colord), and the CommonJS build of the library adds 0.5 MB. 1.52 MB, then 1.59 MB with
      // PostgreSQL's client bundled (its write guard, scripts/bundle.js: +30 KB for both builds),
      // the start-up's lazily loaded chunks and the inbox's stylesheet as formatted CSS; 1.75 MB
      // with the checks' caps on nodes and depth and the docs grown with them. The biggest part is
      // the email clients' support data, once in each build (950 KB unpacked, twice). 2.63 MiB
      // with the CLI in both builds and the V8 code caches of the files it loads (1.6 MB: a
      // first send 50-100 ms sooner, docs/performance.md).
      expect(size).toBeLessThan(2.8 * 1024 * 1024)
      expect(files).toContain(`dist/sendbox-html-to-text.cjs.${v8Stamp()}.v8cache`)
      expect(files).toContain(`dist/sendbox-cli.cjs.${v8Stamp()}.v8cache`)
    })

    it('builds nothing when packed after a build, and the packed package.json has no build to run on install', async () => {
      expect(packed.stdout + packed.stderr).not.toMatch(/> sendbox@[^ ]+ build/)
      expect(packed.stderr).toContain('not built again')
      const manifest = JSON.parse(
        await readFile(join(app, 'node_modules', 'sendbox', 'package.json'), 'utf8'),
      ) as { scripts: Record<string, string> }
      expect(Object.keys(manifest.scripts)).not.toContain('prepare')
      expect(installed.stdout + installed.stderr).not.toMatch(/install-scripts|prepare/)
    })

    it('README links into docs/ resolve in the installed copy', async () => {
      const installedRoot = join(app, 'node_modules', 'sendbox')
      const readme = await readFile(join(installedRoot, 'README.md'), 'utf8')
      const links = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]!)
      expect(links.length).toBeGreaterThan(5)
      for (const link of new Set(links)) await stat(join(installedRoot, link))
    })

    it('exports sendbox/vitest and sendbox/playwright, whose runners are optional peers (not installed)', async () => {
      for (const file of [
        'dist/sendbox-vitest.js',
        'dist/vitest.d.ts',
        'dist/sendbox-playwright.js',
        'dist/playwright.d.ts',
      ])
        expect(files).toContain(file)
      const script = `for (const name of ['sendbox/vitest', 'sendbox/playwright']) console.log(import.meta.resolve(name).split('/node_modules/')[1])`
      const resolved = await run(process.execPath, ['--input-type=module', '-e', script], app)
      expect(resolved.stdout.trim().split('\n'), resolved.stderr).toEqual([
        'sendbox/dist/sendbox-vitest.js',
        'sendbox/dist/sendbox-playwright.js',
      ])
      await expect(stat(join(app, 'node_modules', 'vitest'))).rejects.toThrow()
      await expect(stat(join(app, 'node_modules', '@playwright', 'test'))).rejects.toThrow()
    })

    it('has no build or test tool among its runtime dependencies', () => {
      const dev =
        /^(typescript|vitest|fast-check|playwright(-core)?|autocannon|@types\/.*|@readme\/openapi-parser|@vitest\/.*|tsx|ts-node|ajv|ajv-formats|mailparser|openapi-typescript|openapi-fetch)$/
      expect(Object.keys(pkg.dependencies).filter((name) => dev.test(name))).toEqual([])
    })

    it('npx sendbox --version and --help', async () => {
      const version = await npx(['--version'], app)
      expect(version.code, version.stderr).toBe(0)
      expect(version.stdout.trim()).toBe(pkg.version)
      const help = await npx(['--help'], app)
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('Usage')
      expect(help.stdout).toContain('--port')
    })

    it('npx sendbox check: 0 on clean templates, 1 with file:line on a broken one', async () => {
      await writeFiles(join(app, 'clean'), {
        'templates/hello.liquid':
          '---\nvariables:\n  name: { example: Ada }\n---\n<!doctype html>\n<html lang="en"><head><title>Welcome</title></head><body><div style="display:none">Welcome aboard</div><p>Hello {{ name }}, welcome aboard: your account is ready.</p></body></html>',
      })
      await writeFiles(join(app, 'broken'), {
        'templates/broken.liquid': '<p>Hello</p>\n<p>{% if name %}</p>\n',
      })
      const clean = await npx(['check', '--templates', 'clean/templates'], app)
      expect(clean.code, clean.stdout + clean.stderr).toBe(0)
      expect(clean.stderr).toContain('no problems')
      const broken = await npx(['check', '--templates', 'broken/templates'], app)
      expect(broken.code).toBe(1)
      expect(broken.stdout).toMatch(/broken\/templates\/broken\.liquid:2:\d+ {2}template_invalid/)
    })

    it('npx sendbox render welcome prints the HTML of the shipped example', async () => {
      const shipped = join('node_modules', 'sendbox')
      const result = await npx(
        [
          'render',
          'welcome',
          '--templates',
          join(shipped, 'templates'),
          '--fixtures',
          join(shipped, 'fixtures'),
        ],
        app,
      )
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/^<!doctype html>/i)
      expect(result.stdout).toContain('Welcome, Ada!')
    })

    it('npx sendbox mcp serves MCP from the installed package (its SDK installed with it)', async () => {
      const { startSendbox } = await import('../src/index.js')
      const sandbox = await startSendbox({
        port: 0,
        memory: true,
        templates: join(ROOT, 'templates'),
      })
      const mcp = await connectMcp(['--yes=false', 'sendbox', 'mcp', '--url', sandbox.url], {
        command: 'npx',
        cwd: app,
        env: { npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      })
      try {
        expect(mcp.client.getServerVersion()).toMatchObject({
          name: 'sendbox',
          version: pkg.version,
        })
        const result = await mcp.call('list_templates')
        expect(result.isError, textOf(result)).toBeFalsy()
        expect(result.structuredContent).toMatchObject({
          templates: expect.arrayContaining([expect.objectContaining({ slug: 'welcome' })]),
        })
      } finally {
        await mcp.close()
        await sandbox.close()
      }
    })

    it("import { startSendbox } from 'sendbox' works from an ESM script", async () => {
      await writeFile(
        join(app, 'smoke.mjs'),
        `import { startSendbox } from 'sendbox'
const sandbox = await startSendbox({ port: 0, memory: true, templates: 'node_modules/sendbox/templates' })
const response = await fetch(sandbox.url + '/messages', {
  method: 'POST',
  headers: { authorization: 'token ' + sandbox.token, 'content-type': 'application/json' },
  body: JSON.stringify({ template: 'welcome', from: 'Acme <hello@acme.test>', to: 'ada@example.com', subject: 'Hi',
    templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' } }),
})
if (response.status !== 201) throw new Error('send: ' + response.status + ' ' + await response.text())
const message = await sandbox.waitForMessage({ to: 'ada@example.com', timeout: 5000 })
await sandbox.close()
console.log('ok', message.subject)
`,
      )
      const result = await run(process.execPath, ['smoke.mjs'], app)
      expect(result.stderr).toBe('')
      expect(result.stdout.trim()).toBe('ok Hi')
      expect(result.code).toBe(0)
    })

    it("const { startSendbox } = require('sendbox') works from a CommonJS script", async () => {
      await writeFile(
        join(app, 'smoke.cjs'),
        `const { startSendbox } = require('sendbox')
startSendbox({ port: 0, memory: true, templates: 'node_modules/sendbox/templates' }).then(async (sandbox) => {
  const health = await (await fetch(sandbox.url + '/_sandbox/api/health')).json()
  await sandbox.close()
  console.log('ok', health.templates)
})
`,
      )
      const result = await run(process.execPath, ['smoke.cjs'], app)
      expect(result.stderr).toBe('')
      expect(result.stdout.trim()).toBe('ok 3')
      expect(result.code).toBe(0)
    })

    it('every subpath of exports loads with require() in this CommonJS project (npm init -y)', async () => {
      // The runners are optional peers, not installed above: linked in from this checkout.
      for (const name of ['vitest', '@playwright/test', 'playwright', 'playwright-core']) {
        await mkdir(join(app, 'node_modules', dirname(name)), { recursive: true })
        await symlink(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), 'dir')
      }
      await writeFile(
        join(app, 'subpaths.js'),
        `const sendbox = require('sendbox')
const playwright = require('sendbox/playwright')
console.log(require.resolve('sendbox').split('/node_modules/')[1], typeof sendbox.startSendbox, typeof sendbox.connectSendbox)
console.log(require.resolve('sendbox/playwright').split('/node_modules/')[1], typeof playwright.test, typeof playwright.expect)
console.log(require.resolve('sendbox/vitest').split('/node_modules/')[1])
try { require('sendbox/vitest') } catch (error) { console.log(error.message.split('\\n')[0]) }
`,
      )
      const result = await run(process.execPath, ['subpaths.js'], app)
      expect(result.stdout.trim().split('\n'), result.stderr).toEqual([
        'sendbox/dist/sendbox.cjs function function',
        'sendbox/dist/sendbox-playwright.cjs function function',
        'sendbox/dist/sendbox-vitest.cjs',
        // sendbox/vitest's CommonJS build loads; Vitest itself refuses require() (docs/install.md).
        'Vitest cannot be imported in a CommonJS module using require(). Please use "import" instead.',
      ])
    })

    it('the with-sendbox.sh recipe runs against the installed package', async () => {
      await copyFile(join(ROOT, 'test', 'recipes', 'with-sendbox.sh'), join(app, 'with-sendbox.sh'))
      await writeFiles(app, { 'templates/hello.liquid': 'Hello {{ name }}' })
      const result = await run(
        'bash',
        ['with-sendbox.sh', 'bash', '-c', 'curl -sf "$SENDBOX_URL/_sandbox/api/health"'],
        app,
      )
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({
        status: 'ok',
        version: pkg.version,
        templates: 1,
      })
    })
  },
)
