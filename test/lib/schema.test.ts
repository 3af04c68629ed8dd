import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  boolean,
  enumOf,
  integer,
  jsonObject,
  object,
  optional,
  parse,
  rule,
  string,
} from '../../src/lib/schema.js'

/**
 * The schema kit (src/lib/schema.ts): Valibot schemas with sendbox's messages, and `parse`,
 * which reports Valibot's issues in the one error shape, every problem at once, each field once.
 */

const Fault = object({
  status: enumOf([429, 503] as const),
  count: optional(integer({ minimum: 1 }), 1),
  match: optional(object({ template: optional(string({ maxLength: 5 })) })),
  note: optional(string({ minLength: 1 })),
  on: optional(boolean()),
  vars: optional(jsonObject()),
})

const problems = (value: unknown) => {
  const parsed = parse(Fault, value)
  if (parsed.ok) throw new Error(`accepted ${JSON.stringify(value)}`)
  return parsed.problems
}

describe('parse', () => {
  it('gives the value, defaults applied', () => {
    expect(parse(Fault, { status: 503 })).toEqual({ ok: true, value: { status: 503, count: 1 } })
  })

  it('names an unknown field and the nearest known one', () => {
    expect(problems({ status: 503, cont: 2 })).toEqual([
      {
        field: 'cont',
        code: 'unknown_field',
        message: 'Unknown field "cont". Did you mean "count"?',
      },
    ])
    expect(problems({ status: 503, match: { templat: 'x' } })).toEqual([
      {
        field: 'match.templat',
        code: 'unknown_field',
        message: 'Unknown field "match.templat". Did you mean "template"?',
      },
    ])
  })

  it('names every unknown field, not only the first (Valibot stops at one)', () => {
    expect(problems({ status: 503, cont: 2, retry: 1 }).map((p) => p.field)).toEqual([
      'cont',
      'retry',
    ])
  })

  it('lists every problem at once, one per field, with its code', () => {
    expect(
      problems({
        count: 0,
        match: { template: 'toolong' },
        note: '',
        on: 'yes',
        vars: [],
        xyzzy: 1,
      }),
    ).toEqual([
      { field: 'status', code: 'required', message: 'status is required.' },
      {
        field: 'count',
        code: 'invalid_value',
        message: 'count must be a whole number at least 1; got 0.',
      },
      {
        field: 'match.template',
        code: 'too_long',
        message: 'match.template has 7 characters; the limit is 5.',
      },
      { field: 'note', code: 'too_short', message: 'note must not be empty.' },
      { field: 'on', code: 'invalid_type', message: 'on must be true or false, not a string.' },
      { field: 'vars', code: 'invalid_type', message: 'vars must be an object, not an array.' },
      {
        field: 'xyzzy',
        code: 'unknown_field',
        message: 'Unknown field "xyzzy". Allowed: status, count, match, note, on, vars.',
      },
    ])
  })

  it('null is a value, not "absent"', () => {
    expect(problems({ status: 503, count: null })).toEqual([
      { field: 'count', code: 'invalid_type', message: 'count must be a whole number, not null.' },
    ])
  })

  it('an array or a scalar where an object goes is one invalid_type, not one problem per key', () => {
    for (const value of [[null, null], [], null, 'abc', 5])
      expect(problems(value)).toEqual([
        {
          field: '',
          code: 'invalid_type',
          message: expect.stringMatching(
            /^The body must be a JSON object with status, count, match, note, on, vars, not /,
          ),
        },
      ])
    expect(problems({ status: 503, match: ['x'] })).toEqual([
      expect.objectContaining({ field: 'match', code: 'invalid_type' }),
    ])
  })

  it('a rule reports its own code', () => {
    const line = v.pipe(
      v.string(),
      rule('invalid_characters', (s: string) => !/\n/.test(s), '{field} must be one line.'),
    )
    const parsed = parse(object({ subject: line }), { subject: 'a\nb' })
    expect(parsed).toEqual({
      ok: false,
      problems: [
        { field: 'subject', code: 'invalid_characters', message: 'subject must be one line.' },
      ],
    })
  })

  it('a union reports what is wrong under the option whose type fits the value', () => {
    const address = v.pipe(
      v.string(),
      rule('invalid_address', (s: string) => s.includes('@'), '{field} is no address.'),
    )
    const to = v.union(
      [v.array(address), address],
      '{field} must be a string or an array of strings.',
    )
    const schema = object({ to })
    const at = (value: unknown) => {
      const parsed = parse(schema, { to: value })
      return parsed.ok ? [] : parsed.problems.map((p) => `${p.field}:${p.code}`)
    }
    expect(at(['a@b', 'nope', 7])).toEqual(['to[1]:invalid_address', 'to[2]:invalid_type'])
    expect(at('nope')).toEqual(['to:invalid_address'])
    expect(at({})).toEqual(['to:invalid_type'])
  })
})
