import { createMessageReader } from '../src/core/reading.js'
import { toNodeHandler } from 'h3'
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resolveConfig } from '../src/config.js'
import { createEventBus } from '../src/core/events.js'
import { createFaultRegistry } from '../src/core/faults.js'
import { createMemoryFaultTable } from '../src/store/memory-faults.js'
import { createMemoryRejectionTable } from '../src/store/memory-rejections.js'
import { createRejectionLog } from '../src/core/rejections.js'
import { createPreviewStore } from '../src/core/previews.js'
import { createFrameBatches } from '../src/inspector/frames.js'
import { createApp } from '../src/server/app.js'
import type { AppContext } from '../src/http/context.js'
import { openMessageLog } from '../src/store/index.js'
import type { TemplateCatalog } from '../src/templates/types.js'
import { createTextParts } from '../src/templates/text-parts.js'
import { errorOf } from './helpers/sandbox.js'

/** A catalog whose every lookup throws: the kind of bug a 500 exists for. */
const brokenCatalog = {
  templatesDir: '/x',
  fixturesDir: '/x',
  list: () => [],
  count: () => 0,
  lookup: () => {
    throw new Error('secret internal detail at /home/dev/project')
  },
  render: () => ({ ok: true, html: '' }),
  fixtures: () => [],
  onChange: () => () => {},
  close: async () => {},
} as unknown as TemplateCatalog

let url: string
let server: ReturnType<typeof createServer>
const reported = vi.fn()

beforeAll(async () => {
  const reader = createMessageReader()
  const ctx: AppContext = {
    config: resolveConfig({ memory: true }),
    version: '0.0.0',
    catalog: brokenCatalog,
    texts: createTextParts(''),
    log: await openMessageLog({ file: null }),
    events: createEventBus(),
    faults: createFaultRegistry(createMemoryFaultTable()),
    rejections: createRejectionLog(createMemoryRejectionTable(100)),
    relay: null,
    logger: { info: () => {}, warn: () => {}, error: reported },
    reader,
    previews: createPreviewStore(),
    frames: createFrameBatches(reader),
    // What no request of this test reaches (a send fails at the catalog, before delivery).
    delivery: {} as AppContext['delivery'],
    webhooks: {} as AppContext['webhooks'],
    snapshots: {} as AppContext['snapshots'],
    spam: {} as AppContext['spam'],
    onClose: () => () => {},
  }
  server = createServer(toNodeHandler(createApp(ctx)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(() => server?.close())

describe('an unexpected error', () => {
  it('is 500 internal_error with no stack or detail in the body; the console gets it; the server goes on', async () => {
    const response = await fetch(`${url}/messages`, {
      method: 'POST',
      headers: { authorization: 'token sandbox_x', 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'welcome', from: 'a@b.co', to: 'c@d.co', subject: 'Hi' }),
    })
    expect(response.status).toBe(500)
    const text = await response.clone().text()
    expect(text).not.toContain('secret internal detail')
    expect(text).not.toMatch(/at .*\.ts:\d+/)
    expect((await errorOf(response)).code).toBe('internal_error')
    expect(reported).toHaveBeenCalledTimes(1)
    expect(String(reported.mock.calls[0]![1])).toContain('secret internal detail')
    const health = await fetch(`${url}/_sandbox/api/health`)
    expect(health.status).toBe(200)
  })
})
