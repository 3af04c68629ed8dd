import { readFile } from 'node:fs/promises'
import { expect, vi } from 'vitest'
import { openMessageLog } from '../../src/store/index.js'
import { HEADER } from './helpers.js'

/** What a start checks: the header first, every line whole JSON. Returns the record ids, in order. */
export async function wellFormed(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  const lines = text.slice(0, -1).split('\n')
  expect(lines[0]).toBe(HEADER)
  return lines
    .slice(1)
    .map((line) => JSON.parse(line) as { id?: string; op?: string })
    .filter((entry) => entry.op === undefined)
    .map((entry) => entry.id!)
}

/** Reopens the log as a restart would: no warning (no torn line), and what it lists. */
export async function afterRestart(file: string): Promise<string[]> {
  const warn = vi.fn()
  const log = await openMessageLog({ file, warn })
  const ids = log.list().messages.map((m) => m.id)
  await log.close()
  expect(warn).not.toHaveBeenCalled()
  return ids
}
