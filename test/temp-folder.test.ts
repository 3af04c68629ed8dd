import { basename, dirname } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { tempDir } from './helpers/sandbox.js'

/** The run's temporary files live in one folder of its own (test/temp-setup.ts), removed at its end. */
describe('temporary folders', () => {
  it("are made in the run's own folder, not straight in the system's", async () => {
    expect(basename(tmpdir())).toMatch(/^sendbox-tests-/)
    expect(dirname(await tempDir())).toBe(tmpdir())
  })
})
