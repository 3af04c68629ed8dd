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
    expect(column.dead()).toBe(1)
    expect(column.positions('ada', 0, true)).toEqual([])
    expect(column.positions('bo', 0, true)).toEqual([0])
  })
})
