import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { readyLine } from '../bench/ready-line.js'

describe("bench's ready line", () => {
  it('stops keeping what a child prints once it said it is ready, and reads the rest', async () => {
    const script = `console.log('x ready 4242'); setTimeout(() => { for (let i = 0; i < 2000; i++) console.log('POST /messages 201 → t' + i + '@example.com'); }, 50)`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const { match } = await readyLine(child, /ready (\d+)/, 'child')
    expect(match[1]).toBe('4242')
    // Kept listening, it would hold and search every later line (the bench's own CPU).
    expect(child.stdout!.listenerCount('data')).toBe(0)
    const code = await new Promise((resolve) => child.on('exit', resolve))
    // Read to the end: a child whose pipe filled up would have blocked instead of exiting.
    expect(code).toBe(0)
  })

  it('rejects with what the child printed when it exits first', async () => {
    const child = spawn(process.execPath, ['-e', "console.log('no luck')"], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    await expect(readyLine(child, /ready (\d+)/, 'child')).rejects.toThrow(
      /child exited 0\nno luck/,
    )
  })
})
