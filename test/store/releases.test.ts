import { appendFile, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openMessageLog } from '../../src/store/index.js'
import type { Release } from '../../src/store/types.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

/** Releases (a message sent on through the relay) in the log: one small line each, kept across restarts and compaction. */

const at = '2026-11-21T10:00:01.000Z'
const release = (to: string, response = '250 2.0.0 Ok: queued'): Release => ({
  to: [to],
  at,
  rejected: [],
  response,
})
const lines = async (file: string) => (await readFile(file, 'utf8')).trimEnd().split('\n')

describe('addRelease', () => {
  it('appends one small line and returns a new record, releases before recipients; the old record is left as it was', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const log = await openMessageLog({ file, warn: () => {} })
    const record = makeRecord({ id: 'a' })
    await log.append(record)
    const next = await log.addRelease('a', release('me@acme.test'))
    expect(next).not.toBe(record)
    expect(record.releases).toBeUndefined()
    expect(next!.releases).toEqual([release('me@acme.test')])
    expect(Object.keys(next!).slice(-2)).toEqual(['releases', 'recipients'])
    expect(log.get('a')).toBe(next)
    expect(await log.addRelease('missing', release('me@acme.test'))).toBeUndefined()
    expect(JSON.parse((await lines(file)).at(-1)!)).toEqual({
      op: 'release',
      id: 'a',
      release: release('me@acme.test'),
    })
    await log.close()
  })

  it('survives a restart: compacted at close, with delivery events before and after', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const first = await openMessageLog({ file, warn: () => {} })
    await first.append(makeRecord({ id: 'a' }))
    await first.append(makeRecord({ id: 'b' }))
    await first.addEvents('a', [{ recipient: 0, type: 'delivered', at }])
    await first.addRelease('a', release('me@acme.test'))
    await first.addRelease('a', release('you@acme.test', '250 second'))
    const last = await first.addEvents('a', [{ recipient: 0, type: 'opened', at }])
    await first.delete('b')
    await first.close() // compacts: the record's line holds its releases
    const compacted = await lines(file)
    expect(compacted).toHaveLength(2)
    expect(JSON.parse(compacted[1]!)).toEqual(last)
    const second = await openMessageLog({ file, warn: () => {} })
    expect(second.get('a')).toEqual(last)
    await second.close()
  })

  it('replays release lines onto their records; a release of a deleted message is skipped', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const a = makeRecord({ id: 'a' })
    const text = [
      HEADER,
      JSON.stringify(a),
      JSON.stringify({ op: 'release', id: 'a', release: release('me@acme.test') }),
      JSON.stringify({ op: 'events', id: 'a', events: [{ recipient: 0, type: 'delivered', at }] }),
      JSON.stringify({ op: 'release', id: 'gone', release: release('me@acme.test') }),
      JSON.stringify({ op: 'release', id: 'a', release: release('you@acme.test', '250 b') }),
    ].join('\n')
    await writeFile(file, `${text}\n`)
    const log = await openMessageLog({ file, warn: () => {} })
    const replayed = log.get('a')!
    expect(replayed.status).toBe('delivered')
    expect(replayed.releases).toEqual([release('me@acme.test'), release('you@acme.test', '250 b')])
    expect(Object.keys(replayed).slice(-2)).toEqual(['releases', 'recipients'])
    await log.close()
    // Compacted at open: one line, the record with its releases.
    const compacted = await lines(file)
    expect(compacted).toHaveLength(2)
    expect(JSON.parse(compacted[1]!).releases).toHaveLength(2)
  })

  it('a malformed release line refuses the log, like any other bad line', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const log = await openMessageLog({ file, warn: () => {} })
    await log.append(makeRecord({ id: 'a' }))
    await log.close()
    await appendFile(file, `${JSON.stringify({ op: 'release', id: 'a', release: { to: 'x' } })}\n`)
    await expect(openMessageLog({ file, warn: () => {} })).rejects.toMatchObject({
      code: 'log_invalid',
    })
  })

  it('in memory too', async () => {
    const log = await openMessageLog({ file: null })
    await log.append(makeRecord({ id: 'a' }))
    expect((await log.addRelease('a', release('me@acme.test')))!.releases).toHaveLength(1)
    await log.close()
  })
})
