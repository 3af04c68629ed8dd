import path from 'node:path'
import { expect, it } from 'vitest'
import { toErrorResponse } from '../../src/http/errors.js'
import { isLogClosed, openMessageLog } from '../../src/store/index.js'
import { makeRecord, tempDir } from './helpers.js'

/**
 * A send still in progress when the sandbox stops (past the close's grace period, under load)
 * met a closed log. That was a plain Error: a bare 500 and "Unexpected error … is closed" in
 * the console. Now it is a typed error, answered as a wait the stop ends: 503 shutting_down.
 */
it('a write after the log closed is 503 shutting_down, and nothing is reported as unexpected', async () => {
  for (const file of [path.join(await tempDir(), 'messages.jsonl'), null]) {
    const log = await openMessageLog({ file })
    await log.close()
    const error = await log.append(makeRecord({ id: 'late' })).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isLogClosed(error)).toBe(true)
    const reported: unknown[] = []
    const response = toErrorResponse(error, (e) => reported.push(e))
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('shutting_down')
    expect(body.error.message).toMatch(/stopping.*nothing of this request was stored/)
    expect(reported).toEqual([])
  }
})
