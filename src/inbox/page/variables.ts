/**
 * Template variables as the editor holds them: JSON text parsed into one object, and compared
 * by value (key order and spacing aside). Plain functions, no DOM: the render session and its
 * unit tests use them too.
 */

export type Variables = Record<string, unknown>

export type Parsed = { ok: true; variables: Variables } | { ok: false; message: string }

export function parseVariables(text: string): Parsed {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${(error as Error).message}` }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'The variables must be one JSON object, like { "name": "Ada" }.' }
  return { ok: true, variables: value as Variables }
}

/** JSON with sorted keys: equal variables compare equal whatever their order or spacing. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Variables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  )
}

export const sameVariables = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b)
