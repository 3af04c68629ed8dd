import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach } from 'vitest'
import type { MessageRecord } from '../../src/store/index.js'

let seq = 0

export function makeRecord(overrides: Partial<MessageRecord> = {}): MessageRecord {
  seq++
  const createdAt = new Date(Date.UTC(2026, 10, 21, 10, 0, 0) + seq * 1000).toISOString()
  const to = overrides.to ?? [{ name: 'Ada', address: 'ada@example.com' }]
  return {
    id: `msg_${String(seq).padStart(6, '0')}`,
    status: 'sent',
    createdAt,
    project: 'abcd1234',
    tokenHint: 'sandbox_…f3a9',
    template: 'welcome',
    from: { name: 'Acme', address: 'hello@acme.test' },
    to: [{ name: 'Ada', address: 'ada@example.com' }],
    subject: 'Welcome',
    templateVariables: { n: seq },
    html: '<p>Hi</p>',
    text: 'Hi',
    warnings: [],
    recipients: to.map((a) => ({
      address: a.address,
      status: 'sent',
      events: [{ type: 'sent', at: createdAt }],
    })),
    ...overrides,
  }
}

const dirs: string[] = []

/** A fresh temp dir, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sendbox-store-'))
  dirs.push(dir)
  return dir
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

export const HEADER = '{"sendbox":"log","version":1}'
