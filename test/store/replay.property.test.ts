import { appendFile, copyFile } from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openMessageLog, type MessageLog } from '../../src/store/index.js'
import { makeRecord, tempDir } from './helpers.js'

type Op =
  | { kind: 'append'; id: number; template: 'a' | 'b'; size: number }
  | { kind: 'delete'; id: number }
  | { kind: 'clear'; template?: 'a' | 'b' }
  | { kind: 'reopen' } // close() then open
  | { kind: 'crash'; torn: boolean } // what is on disk right now, opened elsewhere, maybe with a torn tail

const template = fc.constantFrom<'a' | 'b'>('a', 'b')
// A small id pool makes re-appended ids (a replacement) common.
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      id: fc.nat(24),
      template,
      size: fc.nat(3),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(24) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('clear' as const),
      template: fc.option(template, { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), torn: fc.boolean() }) },
)

describe('replay (property)', () => {
  // By count alone, then by bytes too (records of 0.4 to 1.6 KB against 3000 bytes).
  it.each([
    { MAX: 6, MAX_BYTES: undefined },
    { MAX: 50, MAX_BYTES: 3000 },
  ])(
    'a reopened log lists exactly what the in-memory model says (maxMessages $MAX, maxBytes $MAX_BYTES)',
    async ({ MAX, MAX_BYTES }) => {
      const open = (file: string) =>
        openMessageLog({
          file,
          maxMessages: MAX,
          ...(MAX_BYTES ? { maxBytes: MAX_BYTES } : {}),
          warn: () => {},
        })
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 250, size: 'max' }), async (ops) => {
          const dir = await tempDir()
          let generation = 0
          let file = path.join(dir, `log${generation}.jsonl`)
          let log: MessageLog = await open(file)
          // The model: ids with their template and size, oldest first.
          let model: { id: string; template: string; size: number }[] = []
          const bytes = () => model.reduce((sum, m) => sum + m.size, 0)
          const check = () =>
            expect(log.list().messages.map((m) => m.id)).toEqual(model.map((m) => m.id).reverse())
          try {
            for (const step of ops) {
              switch (step.kind) {
                case 'append': {
                  const id = `m${step.id}`
                  const record = makeRecord({
                    id,
                    template: step.template,
                    html: 'x'.repeat(step.size * 400),
                  })
                  model = model.filter((m) => m.id !== id)
                  // A file-backed log weighs a record by its JSON line.
                  model.push({
                    id,
                    template: step.template,
                    size: JSON.stringify(record).length + 1,
                  })
                  while (
                    model.length > MAX ||
                    (MAX_BYTES !== undefined && bytes() > MAX_BYTES && model.length > 1)
                  )
                    model.shift()
                  await log.append(record)
                  break
                }
                case 'delete': {
                  const id = `m${step.id}`
                  const known = model.some((m) => m.id === id)
                  model = model.filter((m) => m.id !== id)
                  expect(await log.delete(id)).toBe(known)
                  break
                }
                case 'clear': {
                  const before = model.length
                  model = step.template ? model.filter((m) => m.template !== step.template) : []
                  expect(
                    (await log.clear(step.template ? { template: step.template } : undefined))
                      .count,
                  ).toBe(before - model.length)
                  break
                }
                case 'reopen':
                  await log.close()
                  log = await open(file)
                  check()
                  break
                case 'crash': {
                  // Every append was acknowledged, so the bytes on disk now are what a SIGKILL leaves.
                  const copy = path.join(dir, `log${++generation}.jsonl`)
                  await copyFile(file, copy)
                  if (step.torn) await appendFile(copy, '{"id":"torn","status":"se')
                  await log.close()
                  file = copy
                  log = await open(file)
                  check()
                  break
                }
              }
            }
            check()
          } finally {
            await log.close()
          }
        }),
        { numRuns: 40 },
      )
    },
    60_000,
  )
})
