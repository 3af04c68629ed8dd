import { describe, expect, it } from 'vitest'
import { createTextColumn } from '../../src/store/text-column.js'

describe('text column', () => {
  it('finds positions by a part of an entry, or by a whole entry', () => {
    const column = createTextColumn()
    column.push(['ada <ada@x.test>'])
    column.push([])
    column.push(['bo <bo@x.test>', 'lovelace-ada <lovelace-ada@x.test>'])
    expect(column.positions('ada@', 0, false)).toEqual([0, 2])
    expect(column.positions('ada@', 1, false)).toEqual([2])
    expect(column.positions('bo <bo@x.test>', 0, true)).toEqual([2])
    expect(column.positions('ada@x.test', 0, true)).toEqual([])
    // From past every line (all of them dropped records'): none.
    expect(column.positions('ada@', 3, false)).toEqual([])
    expect(column.positions('bo <bo@x.test>', 3, true)).toEqual([])
    // An entry's end is not the next one's start: no match runs across two.
    expect(column.positions('test>bo', 0, false)).toEqual([])
    expect(column.positions('a\0b', 0, false)).toBeUndefined()
  })

  it('moves its positions with a cut-off prefix and counts what it holds of it', () => {
    const column = createTextColumn(2)
    column.push(['ada'])
    column.push(['bo'])
    expect(column.positions('bo', 0, true)).toEqual([3])
    column.shift(3)
    expect(column.next).toBe(1)
    expect(column.positions('ada', 0, true)).toEqual([])
    expect(column.positions('bo', 0, true)).toEqual([0])
  })

  it('takes a line out or makes it anew, in chunks of lines, the later lines moving down', () => {
    const column = createTextColumn()
    for (let i = 0; i < 600; i++) column.push([`n${i}@x.test`])
    column.cut(10)
    expect(column.next).toBe(599)
    expect(column.positions('n11@x.test', 0, true)).toEqual([10])
    expect(column.positions('n599@x.test', 0, true)).toEqual([598])
    column.set(300, ['ada@x.test', 'bo@x.test'])
    expect(column.positions('bo@x.test', 0, true)).toEqual([300])
    expect(column.positions('n301@x.test', 0, true)).toEqual([])
    expect(column.positions('n302@x.test', 0, true)).toEqual([301])
    column.shift(520)
    expect(column.positions('n599@x.test', 0, true)).toEqual([78])
    expect(column.positions('@x.test', 0, false)).toHaveLength(79)
  })
})
