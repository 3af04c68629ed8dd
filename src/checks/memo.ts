/**
 * Keeps `value` under `key` in a memo of the checks (compiled stylesheets, inline styles,
 * colours, client support answers), bounded in entries and in the length of each key: a memo
 * holds at most `entries` × `keyChars` characters of keys, and what each holds is in proportion
 * to its key. A key longer is not kept: it will hardly come again (a 1 MiB style attribute),
 * and it would hold memory past the message that brought it. A full memo starts over.
 *
 * @example
 * keep(colours, '#fff', white, { entries: 2000, keyChars: 100 })
 */
export function keep<V>(
  memo: Map<string, V>,
  key: string,
  value: V,
  { entries, keyChars }: { entries: number; keyChars: number },
): V {
  if (key.length > keyChars) return value
  if (memo.size >= entries) memo.clear()
  memo.set(key, value)
  return value
}
