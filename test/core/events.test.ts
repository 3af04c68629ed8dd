import { describe, expect, it } from 'vitest'
import { createEventBus, type SandboxEvent } from '../../src/core/events.js'

const deleted = (id: string): SandboxEvent => ({ type: 'deleted', id, project: 'p' })
const idOf = (event: SandboxEvent) => (event.type === 'deleted' ? event.id : event.type)

describe('the event bus', () => {
  it('an event emitted by a listener reaches every listener after the one being delivered', () => {
    const bus = createEventBus()
    const heard: string[] = []
    bus.subscribe((event) => {
      heard.push(`a:${idOf(event)}`)
      if (idOf(event) === 'm') bus.emit(deleted('w'))
      if (idOf(event) === 'w') bus.emit(deleted('w2'))
    })
    bus.subscribe((event) => heard.push(`b:${idOf(event)}`))
    bus.emit(deleted('m'))
    // Before the fix, b heard w before m.
    expect(heard).toEqual(['a:m', 'b:m', 'a:w', 'b:w', 'a:w2', 'b:w2'])
  })

  it('emit returns once every listener heard it, nested emits included', () => {
    const bus = createEventBus()
    const heard: string[] = []
    bus.subscribe((event) => {
      if (idOf(event) === '1') bus.emit(deleted('2'))
    })
    bus.subscribe((event) => heard.push(idOf(event)))
    bus.emit(deleted('1'))
    expect(heard).toEqual(['1', '2'])
    bus.emit(deleted('3'))
    expect(heard).toEqual(['1', '2', '3'])
  })

  it('a listener that throws is reported; the others still hear it, and the bus goes on', () => {
    const errors: unknown[] = []
    const bus = createEventBus((error) => errors.push(error))
    const heard: string[] = []
    bus.subscribe(() => {
      throw new Error('listener failed')
    })
    bus.subscribe((event) => heard.push(idOf(event)))
    bus.emit(deleted('1'))
    bus.emit(deleted('2'))
    expect(heard).toEqual(['1', '2'])
    expect(errors).toHaveLength(2)
  })

  it('a reporter that throws leaves the bus usable', () => {
    const bus = createEventBus(() => {
      throw new Error('reporter failed')
    })
    const stop = bus.subscribe(() => {
      throw new Error('listener failed')
    })
    expect(() => bus.emit(deleted('1'))).toThrow('reporter failed')
    stop()
    const heard: string[] = []
    bus.subscribe((event) => heard.push(idOf(event)))
    bus.emit(deleted('2'))
    expect(heard).toEqual(['2'])
    expect(bus.size()).toBe(1)
  })
})
