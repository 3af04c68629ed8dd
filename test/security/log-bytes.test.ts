import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig, ConfigError } from '../../src/config.js'
import { serveOptionsFrom } from '../../src/cli/flags.js'
import { startSendbox, type Sendbox } from '../../src/index.js'
import { tempDir, TOKEN } from '../helpers/sandbox.js'

/** The log's memory is bounded in bytes as well as in messages: the oldest go, counted in `dropped`. */

interface Health {
  messages: number
  dropped: number
  bytes: number
}

const health = async (sandbox: Sendbox) =>
  (await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as Health

async function project() {
  const dir = await tempDir('sendbox-bytes-')
  await mkdir(join(dir, 'templates'))
  await writeFile(join(dir, 'templates', 'big.liquid'), '<p>{{ filler }}</p>')
  return dir
}

/** Each message carries the filler three times (variables, HTML, text): about 60 KB. */
async function sendBig(sandbox: Sendbox, n: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'big',
        from: 'a@acme.test',
        to: 'b@example.com',
        subject: `n${i}`,
        templateVariables: { filler: `${i}`.padEnd(20_000, 'x') },
      }),
    })
    expect(response.status).toBe(201)
    ids.push(((await response.json()) as { id: string }).id)
  }
  return ids
}

describe('--max-log-bytes', () => {
  it('drops the oldest once the messages pass it, and counts them, in memory', async () => {
    const dir = await project()
    const sandbox = await startSendbox({ port: 0, cwd: dir, memory: true, maxLogBytes: 200_000 })
    try {
      const ids = await sendBig(sandbox, 10)
      const now = await health(sandbox)
      expect(now.messages).toBe(3)
      expect(now.dropped).toBe(7)
      expect(now.bytes).toBeGreaterThan(150_000)
      expect(now.bytes).toBeLessThanOrEqual(200_000)
      expect((await sandbox.messages()).map((m) => m.id)).toEqual(ids.slice(-3).reverse())
      // Deleting frees its bytes: the next one fits beside the others again.
      expect(
        (await fetch(`${sandbox.url}/_sandbox/api/messages/${ids[9]}`, { method: 'DELETE' }))
          .status,
      ).toBe(204)
      expect((await health(sandbox)).bytes).toBeLessThan(now.bytes)
      await sendBig(sandbox, 1)
      expect((await health(sandbox)).messages).toBe(3)
    } finally {
      await sandbox.close()
    }
  })

  it('keeps the newest message even when it alone is over the limit', async () => {
    const dir = await project()
    const sandbox = await startSendbox({ port: 0, cwd: dir, memory: true, maxLogBytes: 1000 })
    try {
      const ids = await sendBig(sandbox, 2)
      expect((await sandbox.messages()).map((m) => m.id)).toEqual([ids[1]])
    } finally {
      await sandbox.close()
    }
  })

  it('a restart replays the file to the same messages, dropping by bytes as the server did', async () => {
    const dir = await project()
    const first = await startSendbox({ port: 0, cwd: dir, db: 'log.jsonl', maxLogBytes: 200_000 })
    const ids = await sendBig(first, 5)
    expect((await health(first)).messages).toBe(3)
    await first.close()
    // The file holds what the server held; a smaller limit at the next start drops the oldest at replay.
    const lines = (await readFile(join(dir, 'log.jsonl'), 'utf8')).split('\n')
    expect(lines.length).toBe(5) // header, 3 records, ''
    const second = await startSendbox({ port: 0, cwd: dir, db: 'log.jsonl', maxLogBytes: 130_000 })
    try {
      const replayed = await health(second)
      expect(replayed.messages).toBe(2)
      expect(replayed.dropped).toBe(1)
      expect((await second.messages()).map((m) => m.id)).toEqual(ids.slice(-2).reverse())
    } finally {
      await second.close()
    }
  })

  it('is a size flag: --max-log-bytes 512mb, SENDBOX_MAX_LOG_BYTES; a bad value names the flag', () => {
    expect(resolveConfig({ maxLogBytes: '512mb', memory: true }).maxLogBytes).toBe(
      512 * 1024 * 1024,
    )
    expect(resolveConfig({ memory: true }).maxLogBytes).toBe(256 * 1024 * 1024)
    expect(serveOptionsFrom(['--max-log-bytes', '1gb'], {}).options.maxLogBytes).toBe('1gb')
    expect(serveOptionsFrom([], { SENDBOX_MAX_LOG_BYTES: '64mb' }).options.maxLogBytes).toBe('64mb')
    expect(() => resolveConfig({ maxLogBytes: 'lots', memory: true })).toThrow(ConfigError)
    expect(() => resolveConfig({ maxLogBytes: 'lots', memory: true })).toThrow('--max-log-bytes')
  })

  it('the default keeps 5000 ordinary emails: the example receipt is ~6 KB, the default 256 MiB', async () => {
    const sandbox = await startSendbox({
      port: 0,
      memory: true,
      templates: 'templates',
      fixtures: 'fixtures',
    })
    try {
      const variables = JSON.parse(
        await readFile('fixtures/order-receipt/default.json', 'utf8'),
      ) as unknown
      const response = await fetch(`${sandbox.url}/messages`, {
        method: 'POST',
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          template: 'order-receipt',
          from: 'Acme <a@acme.test>',
          to: 'Ada <ada@example.com>',
          subject: 'Receipt',
          templateVariables: variables,
        }),
      })
      expect(response.status).toBe(201)
      const { bytes } = await health(sandbox)
      // 5000 receipts take ~28 MB (the layout's dark-mode rules made each ~5.7 KB): room to spare, five times over.
      expect(bytes * 5000).toBeLessThan(sandbox.config.maxLogBytes / 5)
    } finally {
      await sandbox.close()
    }
  })
})
