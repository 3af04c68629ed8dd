import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../src/index.js'
import { sendExample } from '../src/inbox/page/snippet.js'
import { BIN, ROOT } from './helpers/cli.js'
import {
  anyFencedBlocks,
  bash,
  type Block,
  fencedBlocks,
  isCurlExample,
  matchesExample,
  OWN_RUNNERS,
  readDocs,
  recipeTexts,
} from './helpers/docs.js'
import { tempDir } from './helpers/sandbox.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js'

/**
 * Every runnable example of the README and of every docs/*.md (read by test/helpers/docs.ts,
 * README first), run as written against a real server on port 0 that serves the example
 * templates: each `curl` block (its JSON answer compared with the `json` block that follows it,
 * when there is one) and each `npx sendbox render` line. A guard fails on a curl example in any
 * of them that nothing runs. The inbox's empty-state snippet and the OpenAPI document's send
 * example are run the same way.
 */

let sandbox: Sendbox
let smtp: TestSmtpServer
let docs: Awaited<ReturnType<typeof readDocs>>
let blocks: Block[]
const dirs: string[] = []
beforeAll(async () => {
  docs = await readDocs()
  blocks = docs.flatMap(({ file, text }) => fencedBlocks(text, file))
  // The README's port; tests run in parallel, so it becomes this server's. Snapshots the
  // examples accept are written in a folder of the test's, never into the repository.
  const snapshots = await tempDir('sendbox-readme-snapshots-')
  dirs.push(snapshots)
  // The release example's relay: a real SMTP server (test/relay/docs.test.ts runs the example's
  // own start line against one too).
  smtp = await startSmtpServer()
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(ROOT, 'templates'),
    fixtures: join(ROOT, 'fixtures'),
    snapshots: join(snapshots, 'snapshots'),
    relay: `smtp://127.0.0.1:${smtp.port}`,
    relayAllow: ['me@example.com'],
  })
})
afterAll(async () => {
  await sandbox?.close()
  await smtp?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const onThisServer = (script: string) => script.replaceAll('http://127.0.0.1:5025', sandbox.url)

describe('the README and docs/*.md examples work as written', () => {
  it('every curl block answers what the JSON block after it shows (and never an error it does not show)', async () => {
    const curls = blocks.filter(isCurlExample)
    expect(curls.length).toBeGreaterThanOrEqual(3)
    for (const block of curls) {
      const where = `${block.file}:${block.line}`
      const result = await bash(onThisServer(block.body))
      expect(result.code, `${where}: ${result.stderr}`).toBe(0)
      const answer = JSON.parse(result.stdout) as Record<string, unknown>
      const next = blocks[blocks.indexOf(block) + 1]
      if (
        next?.file === block.file &&
        next.lang === 'json' &&
        next.line - block.line <= block.body.split('\n').length + 4
      ) {
        expect(
          matchesExample(answer, JSON.parse(next.body)),
          `${next.file}:${next.line} against the answer to ${where}\n${result.stdout}`,
        ).toEqual([])
      } else {
        expect(answer.error, `${where} answered an error: ${result.stdout}`).toBeUndefined()
      }
    }
  })

  it('every `npx sendbox render` line prints a render', async () => {
    const dir = await tempDir('sendbox-readme-')
    dirs.push(dir)
    await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
    await cp(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
    await writeFile(
      join(dir, 'vars.json'),
      JSON.stringify({ name: 'Grace', dashboardUrl: 'https://acme.test/dashboard' }),
    )
    const lines = blocks
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.body.split('\n'))
      .filter((l) => l.startsWith('npx sendbox render '))
    expect(lines.length).toBeGreaterThanOrEqual(3)
    for (const line of lines) {
      const command = line
        .replace(/\s+#.*$/, '')
        .replace(/^npx sendbox/, `node ${JSON.stringify(BIN)}`)
      const result = await bash(command, dir)
      expect(result.code, `${line}: ${result.stderr}`).toBe(0)
      expect(result.stdout.length, line).toBeGreaterThan(100)
    }
  })

  it('every `npx sendbox check` line passes on the example templates and fixtures', async () => {
    const dir = await tempDir('sendbox-readme-check-')
    dirs.push(dir)
    await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
    await cp(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
    const lines = blocks
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.body.split('\n').map((line) => ({ line, where: `${b.file}:${b.line}` })))
      .filter(({ line }) => /^npx sendbox check(\s|$)/.test(line))
    expect(lines.length).toBeGreaterThanOrEqual(1)
    for (const { line, where } of lines) {
      const command = line
        .replace(/\s+#.*$/, '')
        .replace(/^npx sendbox/, `node ${JSON.stringify(BIN)}`)
      const result = await bash(command, dir)
      expect(result.code, `${where}: ${line}\n${result.stderr}`).toBe(0)
      expect(result.stderr, `${where}: ${line}`).toMatch(/no problems/)
    }
  })
})

/** Languages a reader would paste into a shell: a block in one of these is meant to run. */
const SHELL = new Set(['', 'sh', 'bash', 'shell', 'zsh', 'console', 'shell-session'])
/** A curl command, at the start of a line or of a command (`$(curl`, `| curl`, `&& curl`). */
const CURL_COMMAND = /(^\s*|[$(|;&]\s*)curl\s/m

/**
 * The shell examples of the docs that nothing runs: a curl command outside a block the curl
 * test runs (a ```bash block, an indented one, a `$(curl` alone) that is not a recipe file, or
 * a `sendbox render` line the render test does not pick up.
 */
function unrunShellExamples(
  docs: Array<{ file: string; text: string }>,
  run: Block[],
  recipes: string[],
): string[] {
  const ran = new Set(run.map((b) => `${b.file}:${b.line}`))
  return docs
    .filter(({ file }) => !OWN_RUNNERS.has(file))
    .flatMap(({ file, text }) => anyFencedBlocks(text, file))
    .filter((b) => SHELL.has(b.lang) && !recipes.includes(b.body.trimEnd()))
    .flatMap((b) => {
      const where = `${b.file}:${b.line} (${b.lang ? `\`\`\`${b.lang}` : 'no language'})`
      const problems: string[] = []
      if (CURL_COMMAND.test(b.body) && !ran.has(`${b.file}:${b.line}`))
        problems.push(`${where}: a curl example the curl test does not run`)
      const renders = b.body.split('\n').filter((l) => /\bsendbox render /.test(l))
      if (renders.some((l) => b.lang !== 'sh' || !l.startsWith('npx sendbox render ')))
        problems.push(`${where}: a sendbox render line the render test does not run`)
      return problems
    })
}

describe('no example in the README or docs/*.md goes unrun', () => {
  it('every shell block with a curl or a sendbox render is run above, or is a recipe file test/recipes/ runs', async () => {
    const recipes = [...(await recipeTexts()).values()]
    const run = blocks.filter(isCurlExample)
    expect(
      unrunShellExamples(docs, run, recipes),
      'write a runnable example as a ```sh block whose commands start their line (curl …, npx sendbox render …)',
    ).toEqual([])
    // Every curl block found by the strict reading is one the lenient reading sees too.
    const found = docs.flatMap(({ file, text }) => anyFencedBlocks(text, file))
    for (const block of run)
      expect(found.some((b) => b.file === block.file && b.line === block.line)).toBe(true)
  })

  it('a page with its own runner is read by that runner', async () => {
    for (const [page, runner] of OWN_RUNNERS) {
      const source = await readFile(join(ROOT, runner), 'utf8')
      expect(source, `${runner} reads ${page}`).toContain(`'${page.split('/').pop()}'`)
    }
  })

  it('the guard finds what the runners would miss', () => {
    const markdown = [
      '```sh',
      'curl -s http://127.0.0.1:5025/templates',
      '```',
      '```bash',
      'curl -s http://127.0.0.1:5025/templates',
      '```',
      '- a list item:',
      '',
      '  ```sh',
      '  ID=$(curl -s http://127.0.0.1:5025/messages)',
      '  ```',
      '```shell',
      'npx sendbox render welcome',
      '```',
      '```text',
      'curl is not run from a text block',
      '```',
    ].join('\n')
    const doc = { file: 'docs/x.md', text: markdown }
    const run = fencedBlocks(markdown, 'docs/x.md').filter(isCurlExample)
    expect(run.map((b) => b.line)).toEqual([1])
    expect(unrunShellExamples([doc], run, [])).toEqual([
      'docs/x.md:4 (```bash): a curl example the curl test does not run',
      'docs/x.md:9 (```sh): a curl example the curl test does not run',
      'docs/x.md:12 (```shell): a sendbox render line the render test does not run',
    ])
  })
})

describe('the other first-hour examples', () => {
  it("the inbox's empty-state snippet sends a message", async () => {
    const result = await bash(sendExample(sandbox.url))
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'sent', template: 'welcome' })
  })

  it("the OpenAPI document's send example is accepted as is", async () => {
    const doc = (await (await fetch(`${sandbox.url}/_sandbox/api/openapi.json`)).json()) as Record<
      string,
      any
    >
    const content = doc.paths['/messages'].post.requestBody.content['application/json']
    const schema = content.schema.$ref
      ? doc.components.schemas[content.schema.$ref.split('/').pop()]
      : content.schema
    // The document's own example when it has one, else one built from each field's example.
    const example =
      content.example ??
      (Object.values(content.examples ?? {})[0] as { value?: unknown } | undefined)?.value ??
      Object.fromEntries(
        Object.entries(schema.properties as Record<string, any>).map(([name, p]) => [
          name,
          p.example ?? p.examples?.[0],
        ]),
      )
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(example),
    })
    expect(response.status, await response.clone().text()).toBe(201)
  })
})
