import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/** How the inbox page is served (no browser needed). */

const PAGE_SOURCES = join(import.meta.dirname, '..', '..', 'src', 'inbox', 'page')

const DARK = [
  '<style>body { background: #fff } @media (prefers-color-scheme: dark) { body { background: #000 } }',
  '@media screen and (prefers-color-scheme: light) { p { color: #111 } } :root { color-scheme: light dark; }</style>',
  '<meta name="color-scheme" content="light dark">',
  '<picture><source srcset="https://example.com/dark.png" media="( prefers-color-scheme : DARK )"><img src="https://example.com/light.png" alt="Logo"></picture>',
].join('\n')

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'hello.liquid': '<p>Hello</p>', 'dark.liquid': DARK })
})
afterAll(() => sandbox?.close())

const get = (path: string, init?: RequestInit) =>
  fetch(`${sandbox.url}${path}`, { redirect: 'manual', ...init })

describe('the inbox page, as served', () => {
  it('serves the shell with a strict CSP, nosniff and no-cache', async () => {
    const response = await get('/_sandbox/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = response.headers.get('content-security-policy') ?? ''
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive)
    }
    expect(csp).not.toContain('unsafe')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    const html = await response.text()
    // Nothing inline: every script has a src, no style element or attribute.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
    expect(html).toContain('<script type="module" src="/_sandbox/app.js"></script>')
    expect(html).toContain('aria-live="polite"')
  })

  it('redirects /_sandbox to /_sandbox/, and / too', async () => {
    for (const path of ['/_sandbox', '/']) {
      const response = await get(path)
      expect([301, 302]).toContain(response.status)
      expect(response.headers.get('location')).toBe('/_sandbox/')
    }
  })

  it('serves the compiled client and the stylesheet, nosniff', async () => {
    const script = await get('/_sandbox/app.js')
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('x-content-type-options')).toBe('nosniff')
    const source = await script.text()
    // Every chunk app.js imports (the code editor, loaded when a template opens) is served as well.
    const chunks = [...source.matchAll(/(?:from|import\()\s*["'`]\.\/([a-z0-9-]+\.js)["'`]/g)]
    expect(chunks.map(([, file]) => file)).toContain('code-editor.js')
    for (const [, file] of chunks) expect((await get(`/_sandbox/${file}`)).status, file).toBe(200)
    // Nothing of the page is parsed as markup: the client never hands Preact raw HTML (Preact's
    // own code has the one `innerHTML` that prop would use).
    for (const file of readdirSync(PAGE_SOURCES).filter((name) => /\.tsx?$/.test(name)))
      expect(readFileSync(join(PAGE_SOURCES, file), 'utf8'), file).not.toMatch(
        /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML/,
      )

    const css = await get('/_sandbox/app.css')
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(await css.text()).toContain('prefers-color-scheme: dark')
    expect(css.headers.get('x-content-type-options')).toBe('nosniff')
    expect(css.headers.get('cache-control')).toBe('no-cache')
    expect((await get('/_sandbox/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml')
  })

  it('serves the stylesheet as one file: the files src/inbox/page/styles/app.css imports, in order', async () => {
    const served = await (await get('/_sandbox/app.css')).text()
    const entry = readFileSync(join(PAGE_SOURCES, 'styles', 'app.css'), 'utf8')
    const imported = [...entry.matchAll(/^@import "\.\/([a-z0-9-]+\.css)";$/gm)].map(([, f]) => f!)
    expect(imported).toEqual([
      'base.css',
      'templates.css',
      'changes.css',
      'session.css',
      'lifecycle.css',
      'spam.css',
    ])
    // No second request for the browser to make: every @import is replaced by its file.
    expect(served).not.toMatch(/^\s*@import/m)
    let from = 0
    for (const file of imported) {
      const at = served.indexOf(readFileSync(join(PAGE_SOURCES, 'styles', file), 'utf8'), from)
      expect(at, file).toBeGreaterThanOrEqual(from)
      from = at
    }
  })

  it('answers unknown inbox files with the JSON 404, and never serves files outside the page folder', async () => {
    for (const path of [
      '/_sandbox/nope.js',
      '/_sandbox/..%2Fpackage.json',
      '/_sandbox/index.js.map',
      '/_sandbox/%2e%2e%2findex.js',
    ]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found')
    }
    expect((await get('/_sandbox/app.js', { method: 'POST' })).status).toBe(405)
  })

  it('the inspector decides the colour scheme of an HTML answer with ?scheme=, keeping its sandboxing headers', async () => {
    const src = '/_sandbox/api/templates/dark/preview'
    const direct = await get(`${src}?images=off`)
    for (const scheme of ['dark', 'light'] as const) {
      const response = await get(`${src}?images=off&scheme=${scheme}`)
      expect(response.status).toBe(200)
      for (const header of [
        'content-type',
        'content-security-policy',
        'x-content-type-options',
        'cache-control',
      ])
        expect(response.headers.get(header), header).toBe(direct.headers.get(header))
      expect(response.headers.get('content-security-policy')).toContain("img-src 'none'")
      const html = await response.text()
      expect(html).not.toContain('prefers-color-scheme')
      const [yes, no] = scheme === 'dark' ? ['(grid: 0)', '(grid: 1)'] : ['(grid: 1)', '(grid: 0)']
      expect(html).toContain(`@media ${yes} { body { background: #000 } }`)
      expect(html).toContain(`@media screen and ${no} { p { color: #111 } }`)
      expect(html).toContain(`media="${yes}"`)
      expect(html).toContain(`<meta name="color-scheme" content="${scheme}">`)
      expect(html).toContain(`:root { color-scheme: ${scheme}; }`)
    }
    expect(await (await get(src)).text()).toContain('prefers-color-scheme')
    // The inbox's measuring frame: of the inspector's origin (the page reads its height), still no scripts.
    const measured = await get(`${src}?frame=measure`)
    expect(measured.status).toBe(200)
    const measureCsp = measured.headers.get('content-security-policy') ?? ''
    expect(measureCsp).toMatch(/^sandbox allow-same-origin;/)
    expect(measureCsp).not.toContain('allow-scripts')
    expect(measureCsp).toContain("default-src 'none'")
    expect(direct.headers.get('content-security-policy')).not.toContain('allow-same-origin')
    expect((await get(`${src}?frame=inline`)).status).toBe(400)
    const bad = await get(`${src}?scheme=sepia`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter')
  })
})
