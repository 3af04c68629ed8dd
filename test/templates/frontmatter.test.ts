import { describe, expect, it } from 'vitest'
import { parseFrontMatter, splitFrontMatter } from '../../src/templates/frontmatter.js'

describe('splitFrontMatter', () => {
  it('returns the source unchanged without front matter', () => {
    expect(splitFrontMatter('Hello {{ name }}\n')).toMatchObject({
      body: 'Hello {{ name }}\n',
      lineOffset: 0,
      yaml: null,
    })
  })

  it('splits the block and counts its lines', () => {
    const split = splitFrontMatter('---\ndescription: Hi\n---\nBody\n')
    expect(split).toMatchObject({ body: 'Body\n', lineOffset: 3, yaml: 'description: Hi\n' })
  })

  it('handles CRLF, a BOM and a closing line at the end of the file', () => {
    expect(splitFrontMatter('\uFEFF---\r\na: 1\r\n---\r\nBody')).toMatchObject({
      body: 'Body',
      lineOffset: 3,
    })
    expect(splitFrontMatter('---\na: 1\n---')).toMatchObject({ body: '', lineOffset: 3 })
  })

  it('does not treat a later --- as front matter', () => {
    expect(splitFrontMatter('Body\n---\na: 1\n---\n').lineOffset).toBe(0)
  })
})

describe('parseFrontMatter', () => {
  it('reads description and variables with description, example and required', () => {
    const result = parseFrontMatter(
      [
        '---',
        'description: Sent after sign-up.',
        'variables:',
        '  name:',
        '    description: First name',
        '    example: Ada',
        '  product:',
        '    required: false',
        '  plain:',
        '  short: A one-line description',
        '---',
        'Hi {{ name }}',
      ].join('\n'),
    )
    expect(result).toEqual({
      ok: true,
      body: 'Hi {{ name }}',
      lineOffset: 11,
      description: 'Sent after sign-up.',
      declared: {
        name: { description: 'First name', example: 'Ada' },
        product: { required: false },
        plain: {},
        short: { description: 'A one-line description' },
      },
    })
  })

  it('accepts a list of names', () => {
    const result = parseFrontMatter('---\nvariables: [name, order.id]\n---\n')
    expect(result).toMatchObject({ ok: true, declared: { name: {}, 'order.id': {} } })
  })

  it('accepts empty front matter', () => {
    expect(parseFrontMatter('---\n---\nBody')).toMatchObject({
      ok: true,
      body: 'Body',
      description: null,
      declared: {},
    })
  })

  it('reports invalid YAML at its line in the file', () => {
    const result = parseFrontMatter('---\ndescription: ok\nvariables: [a, b\n---\nBody')
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.line).toBeGreaterThanOrEqual(3)
    expect(result.error.line).toBeLessThanOrEqual(4)
    expect(result.error.message).toMatch(/^Invalid YAML front matter: /)
    expect(result.error.message).not.toContain('\n')
    expect(result.body).toBe('Body')
  })

  it('reports a bad indentation near its line', () => {
    const result = parseFrontMatter('---\na: 1\n  b: 2\n---\n')
    expect(result.ok).toBe(false)
    if (!result.ok) expect([2, 3]).toContain(result.error.line)
  })

  it('reports wrong types and unknown keys with the line of the value', () => {
    expect(parseFrontMatter('---\ndescription: [1]\n---\n')).toMatchObject({
      ok: false,
      error: { line: 2 },
    })
    expect(parseFrontMatter('---\nvariables:\n  name:\n    requried: false\n---\n')).toMatchObject({
      ok: false,
      error: { line: 4, message: expect.stringContaining('"requried"') },
    })
    expect(parseFrontMatter('---\nvariables:\n  name: { required: "no" }\n---\n')).toMatchObject({
      ok: false,
      error: { line: 3 },
    })
    expect(parseFrontMatter('---\n- a\n- b\n---\n')).toMatchObject({
      ok: false,
      error: { line: 2 },
    })
    expect(parseFrontMatter('---\nvariables:\n  "bad name": {}\n---\n')).toMatchObject({
      ok: false,
      error: { line: 3 },
    })
  })

  it('reports an unclosed block', () => {
    expect(parseFrontMatter('---\ndescription: x\nBody')).toMatchObject({
      ok: false,
      error: { line: 1 },
    })
  })

  it('never evaluates code', () => {
    const result = parseFrontMatter('---js\n{ description: process.exit(1) }\n---\nBody')
    // "---js" is not a front matter opener: the whole file is the body.
    expect(result).toMatchObject({ ok: true, lineOffset: 0, description: null })
  })
})
