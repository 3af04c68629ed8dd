import { describe, expect, it } from 'vitest'
import { describeFilter, filterToQuery, parseSearch } from '../../src/inbox/page/search.js'

describe("the inbox search box's syntax", () => {
  it.each([
    ['', {}],
    ['reset', { subject: 'reset' }],
    ['password reset', { subject: 'password reset' }],
    ['to:ada', { to: 'ada' }],
    ['TO:ada From:acme', { to: 'ada', from: 'acme' }],
    ['to:ada subject:reset', { to: 'ada', subject: 'reset' }],
    ['template:welcome hello there', { template: 'welcome', subject: 'hello there' }],
    ['subject:"order #1042" to:"Ada Lovelace"', { subject: 'order #1042', to: 'Ada Lovelace' }],
    ['"two words"', { subject: 'two words' }],
    ['subject:your receipt', { subject: 'your receipt' }],
    ['Re: hello', { subject: 'Re: hello' }],
    ['to: ada', { subject: 'ada' }],
    ['to:ada to:bob', { to: 'bob' }],
    ['project:1f2e3d4c', { project: '1f2e3d4c' }],
    ['status:bounced to:ada', { status: 'bounced', to: 'ada' }],
    ['subject:"unterminated', { subject: 'unterminated' }],
  ])('%j → %j', (input, expected) => {
    expect(parseSearch(input)).toEqual(expected)
  })

  it('becomes the inspector query, and a readable description', () => {
    const filter = parseSearch('to:ada reset')
    expect(filterToQuery(filter).toString()).toBe('to=ada&subject=reset')
    expect(describeFilter(filter)).toBe('to: ada, subject: reset')
  })
})
