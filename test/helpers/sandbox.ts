import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { startSendbox, type Sendbox } from '../../src/index.js'
import type { SendboxOptions } from '../../src/config.js'

export const TOKEN = 'sandbox_test_0123456789abcdef'

export async function tempDir(prefix = 'sendbox-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/** Writes `{ 'a/b.liquid': '…' }` under `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), content)
  }
}

export interface TestSandbox extends Sendbox {
  dir: string
  templatesDir: string
  /** fetch relative to the sandbox, with the test token unless `auth: false`. */
  api(
    path: string,
    init?: RequestInit & { auth?: false | string; json?: unknown },
  ): Promise<Response>
  send(body: unknown, token?: string): Promise<Response>
}

/** A real server on port 0 over a temp templates folder. */
export async function startTestSandbox(
  templates: Record<string, string> = {},
  options: SendboxOptions = {},
  fixtures: Record<string, string> = {},
): Promise<TestSandbox> {
  const dir = await tempDir()
  const templatesDir = join(dir, 'templates')
  await mkdir(templatesDir, { recursive: true })
  await writeFiles(templatesDir, templates)
  await writeFiles(join(dir, 'fixtures'), fixtures)
  const sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: templatesDir,
    fixtures: join(dir, 'fixtures'),
    // Snapshots an accept writes stay in the test's folder (the default is ./snapshots).
    snapshots: join(dir, 'snapshots'),
    ...options,
  })
  const api: TestSandbox['api'] = (path, init = {}) => {
    const { auth, json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (auth !== false && !headers.has('authorization'))
      headers.set('authorization', `token ${auth ?? TOKEN}`)
    if (json !== undefined) headers.set('content-type', 'application/json')
    return fetch(`${sandbox.url}${path}`, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    })
  }
  const close = sandbox.close
  return Object.assign(sandbox, {
    dir,
    templatesDir,
    api,
    send: (body: unknown, token?: string) =>
      api('/messages', { method: 'POST', json: body, ...(token ? { auth: token } : {}) }),
    close: async () => {
      await close()
      await rm(dir, { recursive: true, force: true })
    },
  })
}

/** Asserts the contract's error shape and returns the error. */
export async function errorOf(
  response: Response,
): Promise<{ code: string; message: string; details: unknown[] }> {
  const type = response.headers.get('content-type') ?? ''
  if (!type.includes('application/json'))
    throw new Error(`expected a JSON error, got ${type}: ${await response.text()}`)
  const body = (await response.json()) as {
    error: { code: string; message: string; details: unknown[] }
  }
  if (
    typeof body.error?.code !== 'string' ||
    typeof body.error.message !== 'string' ||
    !Array.isArray(body.error.details)
  ) {
    throw new Error(`not the contract's error shape: ${JSON.stringify(body)}`)
  }
  return body.error
}
