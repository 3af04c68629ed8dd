import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { clearMessages, storeMessage } from '../../src/core/messages.js'
import { createEventBus, type SandboxEvent } from '../../src/core/events.js'
import {
  isLogWriteError,
  openMessageLog,
  type LogHealth,
  type MessageLog,
} from '../../src/store/index.js'
import { nodeFs } from '../../src/store/log-fs.js'
import { faultyFs } from './faulty-fs.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'
import { afterRestart, wellFormed } from './log-check.js'

/** The log under faults (issue 26, docs/log-faults.md), and issue 20's defects 6 and 7. */

async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => expect.fail('expected the write to fail'),
    (e: unknown) => e,
  )
  expect(isLogWriteError(error)).toBe(true)
  return error as Error & { reason: string; file: string }
}

describe.each(['ENOSPC', 'EACCES', 'EIO'])('a write that fails with %s', (code) => {
  it('acknowledges nothing unwritten, says so once, and works again at the next write', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const disk = faultyFs()
    const warn = vi.fn()
    const changes: LogHealth[] = []
    const log = await openMessageLog({ file, fs: disk.fs, warn, onHealth: (h) => changes.push(h) })
    await log.append(makeRecord({ id: 'a' }))
    disk.fail(code)
    const error = await rejection(log.append(makeRecord({ id: 'b' })))
    expect(error.reason).toBe(code)
    expect(error.file).toBe(file)
    expect(error.message).toContain(file)
    expect(error.message).toContain(code)
    await rejection(log.append(makeRecord({ id: 'c' })))
    await rejection(log.delete('a'))
    expect(log.list().messages.map((m) => m.id)).toEqual(['a']) // memory is what the file says
    expect(log.health()).toMatchObject({ state: 'write_failed', reason: code, file })
    expect(warn).toHaveBeenCalledTimes(1) // once, not per send
    expect(warn.mock.calls[0]![0]).toMatch(/507 log_write_failed/)
    disk.heal()
    await log.append(makeRecord({ id: 'd' }))
    expect(log.health().state).toBe('ok')
    expect(warn).toHaveBeenLastCalledWith(`The message log ${file} is written again.`)
    expect(changes.map((h) => h.state)).toEqual(['write_failed', 'ok'])
    expect(log.list().messages.map((m) => m.id)).toEqual(['d', 'a'])
    await log.close()
    expect(await wellFormed(file)).toEqual(['a', 'd'])
    expect(await afterRestart(file)).toEqual(['d', 'a'])
  })
})

describe('a failed append leaves memory as the file says (issue 20, defect 6)', () => {
  it('the count limit drops the oldest only once the new line is written', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const disk = faultyFs()
    const log = await openMessageLog({ file, fs: disk.fs, maxMessages: 2 })
    await log.append(makeRecord({ id: 'a' }))
    await log.append(makeRecord({ id: 'b' }))
    disk.fail('ENOSPC')
    await expect(log.append(makeRecord({ id: 'c' }))).rejects.toThrow()
    expect(log.list().messages.map((m) => m.id)).toEqual(['b', 'a'])
    expect(log.dropped()).toBe(0)
    disk.heal()
    await log.close()
    expect(await afterRestart(file)).toEqual(['b', 'a'])
  })

  it('a record of the same id is replaced only once the new line is written', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const disk = faultyFs()
    const log = await openMessageLog({ file, fs: disk.fs })
    const first = makeRecord({ id: 'same', subject: 'first' })
    await log.append(first)
    disk.fail('ENOSPC')
    await expect(log.append(makeRecord({ id: 'same', subject: 'second' }))).rejects.toThrow()
    expect(log.get('same')).toBe(first)
    expect(log.list().messages).toEqual([first])
    disk.heal()
    await log.close()
  })

  it('a clear, a delivery state and a suppression whose line failed are taken back', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const disk = faultyFs()
    const log = await openMessageLog({ file, fs: disk.fs })
    const a = makeRecord({ id: 'a' })
    await log.append(a)
    await log.append(makeRecord({ id: 'b', template: 'other' }))
    disk.fail('EIO')
    await expect(log.clear({ template: 'other' })).rejects.toThrow()
    await expect(log.clear()).rejects.toThrow()
    await expect(
      log.addEvents('a', [{ recipient: 0, type: 'delivered', at: a.createdAt }]),
    ).rejects.toThrow()
    await rejection(
      log.suppress({ address: 'x@y.test', project: 'p', reason: 'bounced', createdAt: 't' }),
    )
    expect(log.list().messages.map((m) => m.id)).toEqual(['b', 'a'])
    expect(log.get('a')).toBe(a)
    expect(log.suppressions()).toEqual([])
    disk.heal()
    await log.close()
    expect(await afterRestart(file)).toEqual(['b', 'a'])
  })
})

describe('a clear during a send (issue 20, defect 7)', () => {
  it('is not followed by the message event of a record it removed', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    // Hold the first write: the send and the clear then queue behind it, in one batch.
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let holding = false
    const log = await openMessageLog({
      file,
      fs: {
        ...nodeFs,
        async write(...args) {
          if (holding) {
            holding = false
            await held
          }
          return nodeFs.write(...args)
        },
      },
    })
    const events = createEventBus()
    const seen: SandboxEvent['type'][] = []
    events.subscribe((event) => seen.push(event.type))
    const ctx = { log, events }
    holding = true
    const blocker = log.append(makeRecord({ id: 'blocker' }))
    const sent = storeMessage(ctx, {
      caller: { project: 'abcd1234', tokenHint: 'sandbox_…0000' },
      template: 'welcome',
      from: { name: null, address: 'a@b.test' },
      to: [{ name: null, address: 'c@d.test' }],
      subject: 'Hi',
      templateVariables: {},
      rendered: { html: '<p>Hi</p>', text: 'Hi', warnings: [] } as never,
      warnings: [],
    })
    const cleared = clearMessages(ctx)
    release()
    const [, record] = await Promise.all([blocker, sent, cleared])
    expect(log.get(record.id)).toBeUndefined()
    expect(seen).toEqual(['cleared']) // no ghost `message` for what the clear removed
    await log.close()
  })
})

describe('a log removed or replaced while the server runs', () => {
  async function populated(options: { checkIntervalMs?: number } = {}) {
    const dir = path.join(await tempDir(), '.sendbox')
    const file = path.join(dir, 'messages.jsonl')
    const warnings: string[] = []
    let onWarning: (message: string) => void = () => {}
    const log = await openMessageLog({
      file,
      ...options,
      warn: (message) => {
        warnings.push(message)
        onWarning(message)
      },
    })
    const a = makeRecord({ id: 'a' })
    await log.append(a)
    await log.addEvents('a', [{ recipient: 0, type: 'delivered', at: a.createdAt }])
    await log.suppress({ address: 'x@y.test', project: 'p', reason: 'bounced', createdAt: 't' })
    const warned = (pattern: RegExp) =>
      new Promise<string>((resolve) => {
        onWarning = (message) => pattern.test(message) && resolve(message)
      })
    return { dir, file, log, warnings, warned }
  }

  /** Written anew from memory: header, suppressions, delivery states; owner-only, .gitignore, lock. */
  async function rebuilt(dir: string, file: string, log: MessageLog): Promise<void> {
    const text = await readFile(file, 'utf8')
    expect(text).toContain('"op":"suppress"')
    expect(text).toContain('"status":"delivered"')
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(await readFile(`${file}.lock`, 'utf8')).toContain(`"pid":${process.pid}`)
    expect(log.health().state).toBe('ok')
  }

  it('the folder removed between two sends: noticed at the next write, nothing lost', async () => {
    const { dir, file, log, warnings } = await populated()
    await rm(dir, { recursive: true, force: true })
    await log.append(makeRecord({ id: 'b' }))
    expect(warnings.join('\n')).toMatch(/messages\.jsonl was removed while sendbox was running/)
    await rebuilt(dir, file, log)
    expect(await wellFormed(file)).toEqual(['a', 'b'])
    await log.close()
    expect(await afterRestart(file)).toEqual(['b', 'a'])
  })

  it('the file replaced by another: written anew from memory', async () => {
    const { dir, file, log, warnings } = await populated()
    await writeFile(path.join(dir, 'other'), `${HEADER}\n`)
    await rename(path.join(dir, 'other'), file)
    await log.append(makeRecord({ id: 'b' }))
    expect(warnings.join('\n')).toMatch(/was replaced by another file/)
    await rebuilt(dir, file, log)
    expect(await wellFormed(file)).toEqual(['a', 'b'])
    await log.close()
    expect(await afterRestart(file)).toEqual(['b', 'a'])
  })

  it('the folder removed while idle: the periodic check writes it anew', async () => {
    const { dir, file, log, warned } = await populated({ checkIntervalMs: 10 })
    const noticed = warned(/was removed/)
    // Moved away in one step, then removed: an `rm` of the folder in place unlinks the file
    // first, and a check in between wrote it anew, so the rmdir failed with ENOTEMPTY.
    await rename(dir, `${dir}.gone`)
    await rm(`${dir}.gone`, { recursive: true, force: true })
    await noticed
    await log.close() // waits for the rewrite the check started
    expect(await wellFormed(file)).toEqual(['a'])
    expect(await afterRestart(file)).toEqual(['a'])
  })

  it('the folder removed and not writable again: 507, then recovery', async () => {
    const disk = faultyFs()
    const dir = path.join(await tempDir(), '.sendbox')
    const file = path.join(dir, 'messages.jsonl')
    const warnings: string[] = []
    const log = await openMessageLog({ file, fs: disk.fs, warn: (w) => warnings.push(w) })
    await log.append(makeRecord({ id: 'a' }))
    await rm(dir, { recursive: true, force: true })
    disk.fail('EACCES')
    await rejection(log.append(makeRecord({ id: 'b' })))
    await rejection(log.append(makeRecord({ id: 'b2' })))
    expect(warnings.filter((w) => /was removed/.test(w))).toHaveLength(1) // said once, not per retry
    expect(log.list().messages.map((m) => m.id)).toEqual(['a'])
    disk.heal()
    await log.append(makeRecord({ id: 'c' }))
    await log.close()
    expect(await afterRestart(file)).toEqual(['c', 'a'])
  })
})
