import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'

/**
 * Reading the served OpenAPI document from the outside, as a fuzzer or a client generator
 * would: JSON Schema validation of answers (ajv, 2020-12, formats checked) and fast-check
 * arbitraries generated from the schemas.
 */

export type Json = Record<string, any>

const DOC_ID = 'https://sendbox.test/openapi.json'

/** `#/components/schemas/X` → the schema. */
export function resolve(doc: Json, schema: Json): Json {
  let current = schema
  while (current?.$ref) {
    const path = (current.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    current = path.reduce((node: Json, key) => node[key], doc)
  }
  return current
}

/**
 * Every object schema that lists its properties and says nothing of others is closed
 * (`additionalProperties: false`): an answer with a property the document does not name fails.
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (typeof node !== 'object' || node === null) return node
  const out: Json = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, closeObjects(value)]),
  )
  if (
    out.properties &&
    typeof out.properties === 'object' &&
    out.additionalProperties === undefined &&
    !('$ref' in out)
  )
    out.additionalProperties = false
  return out
}

/** Validators for schemas of the document, by JSON pointer into it. */
export function answerValidator(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats.default(ajv)
  ajv.addSchema({ ...(closeObjects(doc) as Json), $id: DOC_ID })
  const cache = new Map<string, ValidateFunction>()
  return (pointer: string[]): ValidateFunction => {
    const ref = `${DOC_ID}#/${pointer.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`
    let validate = cache.get(ref)
    if (!validate) cache.set(ref, (validate = ajv.compile({ $ref: ref })))
    return validate
  }
}

// fast-check cannot generate from a negated class over all of Unicode; a few non-ASCII
// characters (2-, 3- and 4-byte) stand in for "any non-ASCII character".
const generatorPattern = (pattern: string) =>
  new RegExp(pattern.replaceAll('[^\\x00-\\x7F]', '[éß߿ࠀ￿😀]'), 'u')

/** Two schemas that both apply, as one (for generation): properties merged, required joined. */
function merged(doc: Json, a: Json, b: Json): Json {
  const out: Json = { ...a, ...b }
  if (a.properties || b.properties) {
    const keys = new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})])
    out.properties = Object.fromEntries(
      [...keys].map((key) => {
        const [left, right] = [a.properties?.[key], b.properties?.[key]]
        return [
          key,
          left && right ? merged(doc, resolve(doc, left), resolve(doc, right)) : (left ?? right),
        ]
      }),
    )
  }
  if (a.required || b.required)
    out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])]
  // A constant or a list of values says it all: the other side's pattern and type are moot.
  if (b.const !== undefined || b.enum) {
    delete out.pattern
    if (b.const !== undefined) delete out.enum
  }
  return out
}

/** A fast-check arbitrary of the values a JSON Schema (of the document) allows. */
export function arbitraryOf(doc: Json, schema: Json, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema)
  if (s.const !== undefined) return fc.constant(s.const)
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]))
  if (s.oneOf || s.anyOf) {
    const { oneOf, anyOf, discriminator: _discriminator, ...base } = s
    const options = (oneOf ?? anyOf) as Json[]
    // Properties beside a oneOf apply with each option (SendRequest: every send, and one template).
    const shared = base.properties !== undefined
    return fc.oneof(
      ...options.map((item) =>
        arbitraryOf(doc, shared ? merged(doc, base, resolve(doc, item)) : item, depth),
      ),
    )
  }
  const types = Array.isArray(s.type)
    ? (s.type as string[])
    : s.type
      ? [s.type as string]
      : ['object']
  if (types.length > 1)
    return fc.oneof(...types.map((type) => arbitraryOf(doc, { ...s, type }, depth)))
  const notValues = (s.not?.enum as unknown[] | undefined) ?? []
  switch (types[0]) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.integer({
        min: Math.max(s.minimum ?? -1e6, Number.MIN_SAFE_INTEGER),
        max: Math.min(s.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
      })
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true })
    case 'string': {
      if (s.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString())
      if (s.format === 'date')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10))
      const base = s.pattern
        ? fc.stringMatching(generatorPattern(s.pattern))
        : fc.string({
            unit: 'grapheme',
            minLength: s.minLength ?? 0,
            maxLength: Math.min(s.maxLength ?? 40, 40),
          })
      return base.filter(
        (v) =>
          v.length >= (s.minLength ?? 0) &&
          v.length <= (s.maxLength ?? Infinity) &&
          !notValues.includes(v),
      )
    }
    case 'array':
      return fc.array(arbitraryOf(doc, s.items ?? {}, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 4, depth > 1 ? 1 : 4),
      })
    default: {
      if (!s.properties)
        return depth > 2
          ? fc.constant({})
          : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
              maxKeys: 3,
            })
      const required = new Set<string>(s.required ?? [])
      const record = Object.fromEntries(
        Object.entries(s.properties as Record<string, Json>).map(([key, value]) => [
          key,
          arbitraryOf(doc, value, depth + 1),
        ]),
      )
      const exclusive = (s.not?.required ?? []) as string[]
      // `not: { required: [a, b] }`: never all of them together.
      return fc
        .record(record, { requiredKeys: [...required] })
        .filter((value) => exclusive.length === 0 || !exclusive.every((key) => key in value))
    }
  }
}

/**
 * Whether an answer matches a documented example: objects and arrays compare member by member,
 * a string ending in "…" stands for any string that starts with the rest, and the values of
 * `volatile` keys (ids, times) only need to be there.
 */
export function matchesExample(
  example: unknown,
  actual: unknown,
  volatile = new Set(['id', 'createdAt', 'updatedAt', 'url', 'file']),
): boolean {
  if (typeof example === 'string' && example.endsWith('…'))
    return typeof actual === 'string' && actual.startsWith(example.slice(0, -1))
  if (Array.isArray(example))
    return (
      Array.isArray(actual) &&
      actual.length === example.length &&
      example.every((item, i) => matchesExample(item, actual[i], volatile))
    )
  if (typeof example === 'object' && example !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false
    const keys = new Set([...Object.keys(example), ...Object.keys(actual)])
    return [...keys].every((key) =>
      volatile.has(key)
        ? key in actual && key in example
        : matchesExample((example as Json)[key], (actual as Json)[key], volatile),
    )
  }
  return Object.is(example, actual)
}
