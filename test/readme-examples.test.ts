import { execFile } from 'node:child_process'
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../src/index.js'
import { sendExample } from '../src/inbox/client/snippet.js'
import { BIN, childEnv, ROOT } from './helpers/cli.js'
import { tempDir } from './helpers/sandbox.js'

/**
 * Every runnable example of the README, run as written against a real server on port 0 that
 * serves the example templates: each `curl` block (its JSON answer compared with the `json`
 * block that follows it, when there is one) and each `npx sendbox render` line. The inbox's
 * empty-state snippet and the OpenAPI document's send example are run the same way.
 */

interface Block {
  lang: string
  body: string
  line: number
}

export function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const start = i
    const body: string[] = []
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!)
    blocks.push({ lang: open[1]!, body: body.join('\n'), line: start + 1 })
  }
  return blocks
}

/**
 * The README's JSON next to an answer: strings with "…" stand for any string, `createdAt` and
 * `updatedAt` for any time; everything else must be equal, with the same keys.
 */
function matchesExample(actual: unknown, example: unknown, path = '$'): string[] {
  if (typeof example === 'string' && example.includes('…'))
    return typeof actual === 'string'
      ? []
      : [`${path}: expected a string, got ${JSON.stringify(actual)}`]
  if (/\.(createdAt|updatedAt)$/.test(path))
    return typeof actual === 'string' && !Number.isNaN(Date.parse(actual))
      ? []
      : [`${path}: expected a time`]
  if (Array.isArray(example)) {
    if (!Array.isArray(actual) || actual.length !== example.length)
      return [`${path}: expected ${JSON.stringify(example)}, got ${JSON.stringify(actual)}`]
    return example.flatMap((item, i) => matchesExample(actual[i], item, `${path}[${i}]`))
  }
  if (example && typeof example === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`]
    const keys = [...new Set([...Object.keys(example), ...Object.keys(actual)])]
    return keys.flatMap((key) => {
      if (!(key in example)) return [`${path}.${key}: in the answer but not in the README`]
      if (!(key in actual)) return [`${path}.${key}: in the README but not in the answer`]
      return matchesExample(
        (actual as Record<string, unknown>)[key],
        (example as Record<string, unknown>)[key],
        `${path}.${key}`,
      )
    })
  }
  return Object.is(actual, example)
    ? []
    : [`${path}: expected ${JSON.stringify(example)}, got ${JSON.stringify(actual)}`]
}

function bash(
  script: string,
  cwd = ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd, env: childEnv(), timeout: 30_000 },
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

let sandbox: Sendbox
let blocks: Block[]
const dirs: string[] = []
beforeAll(async () => {
  blocks = fencedBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'))
  // The README's port; tests run in parallel, so it becomes this server's.
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(ROOT, 'templates'),
    fixtures: join(ROOT, 'fixtures'),
  })
})
afterAll(async () => {
  await sandbox?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const onThisServer = (script: string) => script.replaceAll('http://127.0.0.1:5025', sandbox.url)

describe('the README examples work as written', () => {
  it('every curl block answers what the JSON block after it shows (and never an error it does not show)', async () => {
    const curls = blocks.filter(
      (b) => b.lang === 'sh' && /^curl /m.test(b.body) && !b.body.startsWith('#!'),
    )
    expect(curls.length).toBeGreaterThanOrEqual(3)
    for (const block of curls) {
      const result = await bash(onThisServer(block.body))
      expect(result.code, `README.md:${block.line}: ${result.stderr}`).toBe(0)
      const answer = JSON.parse(result.stdout) as Record<string, unknown>
      const next = blocks[blocks.indexOf(block) + 1]
      if (next?.lang === 'json' && next.line - block.line <= block.body.split('\n').length + 4) {
        expect(
          matchesExample(answer, JSON.parse(next.body)),
          `README.md:${next.line} against the answer to README.md:${block.line}\n${result.stdout}`,
        ).toEqual([])
      } else {
        expect(
          answer.error,
          `README.md:${block.line} answered an error: ${result.stdout}`,
        ).toBeUndefined()
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
