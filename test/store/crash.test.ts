import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openMessageLog } from '../../src/store/index.js'
import { tempDir } from './helpers.js'

/**
 * Real process deaths need the store as plain JS in a child process: there is no TS loader
 * under Node 20 here and dist/ may be stale, so the store's sources are transpiled into a temp dir.
 */
const storeSrc = fileURLToPath(new URL('../../src/store/', import.meta.url))
const lowdbUrl = pathToFileURL(createRequire(import.meta.url).resolve('lowdb')).href
let storeDir: string

async function transpileStore(into: string): Promise<void> {
  await mkdir(into, { recursive: true })
  for (const name of await readdir(storeSrc)) {
    if (!name.endsWith('.ts')) continue
    const source = await readFile(path.join(storeSrc, name), 'utf8')
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    })
    await writeFile(
      path.join(into, name.replace(/\.ts$/, '.js')),
      outputText.replaceAll(`from 'lowdb'`, `from '${lowdbUrl}'`),
    )
  }
}

const CHILD = `
import { openMessageLog } from './store/index.js'
const [file, mode] = process.argv.slice(2)
const log = await openMessageLog({ file })
const record = (i) => ({ id: 'm' + i, status: 'sent', createdAt: new Date().toISOString(), project: 'abcd1234',
  tokenHint: 'sandbox_…0000', template: 'welcome', from: { name: null, address: 'a@b.test' },
  to: [{ name: null, address: 'c@d.test' }], subject: 'Hi', templateVariables: {}, html: 'x'.repeat(2000), text: 'x', warnings: [] })
if (mode === 'exit') {
  await log.append(record(0))
  process.exit(0) // without close(): the exit hook must still remove the lock
}
// Many concurrent senders, each acknowledged on stdout only once its append resolved.
let next = 0
const sender = async () => { for (;;) { const i = next++; await log.append(record(i)); process.stdout.write('m' + i + '\\n') } }
for (let k = 0; k < 8; k++) sender()
`

beforeAll(async () => {
  // Not tempDir(): that one is emptied after every test, and this lives for the whole file.
  storeDir = await mkdtemp(path.join(os.tmpdir(), 'sendbox-store-js-'))
  await transpileStore(path.join(storeDir, 'store'))
  await writeFile(path.join(storeDir, 'child.mjs'), CHILD)
}, 30_000)

afterAll(async () => {
  await rm(storeDir, { recursive: true, force: true })
})

describe('a process killed while sending', () => {
  it('loses no acknowledged message to SIGKILL, and its lock does not block the next open', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const child = spawn(process.execPath, [path.join(storeDir, 'child.mjs'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const acked: string[] = []
    let buffered = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      acked.push(...lines)
      if (acked.length >= 500) child.kill('SIGKILL')
    })
    await once(child, 'exit')
    expect(child.signalCode).toBe('SIGKILL')
    expect(acked.length).toBeGreaterThanOrEqual(500)

    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('stale lock'))
    const stored = new Set(log.list().messages.map((m) => m.id))
    expect(acked.filter((id) => !stored.has(id))).toEqual([])
    await log.close()
  })

  it('removes its lock on process.exit() even without close()', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const child = spawn(process.execPath, [path.join(storeDir, 'child.mjs'), file, 'exit'], {
      stdio: 'inherit',
    })
    await once(child, 'exit')
    expect(child.exitCode).toBe(0)
    expect(await readdir(path.dirname(file))).toEqual(['messages.jsonl'])
    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).not.toHaveBeenCalled()
    expect(log.count()).toBe(1)
    await log.close()
  })
})
