import { describe, expect, it } from 'vitest'
import { checkEmail } from '../../src/checks/index.js'
import { clientList, clientName } from '../../src/checks/client-names.js'

const TEXT = 'Your order has shipped and is on its way to you.'
const PRE = '<div style="display:none;max-height:0;overflow:hidden">Your order shipped</div>'

describe('client names', () => {
  it('names a caniemail client id as people say it', () => {
    expect(clientName('gmail.android')).toBe('Gmail (Android)')
    expect(clientName('gmail.desktop-webmail')).toBe('Gmail (webmail)')
    expect(clientName('outlook.windows')).toBe('Outlook (Windows)')
    expect(clientName('apple-mail.ios')).toBe('Apple Mail (iOS)')
    expect(clientName('newmail.tv')).toBe('newmail (tv)')
  })

  it('lists several clients of a family once: "Gmail (webmail, iOS, Android)"', () => {
    expect(
      clientList(['gmail.desktop-webmail', 'gmail.ios', 'gmail.android', 'yahoo.desktop-webmail']),
    ).toBe('Gmail (webmail, iOS, Android) and Yahoo Mail (webmail)')
    expect(clientList(['outlook.windows'])).toBe('Outlook (Windows)')
  })
})

describe('client support notes', () => {
  it('name clients by name, never by id, in the notes and the scores', async () => {
    const html = `<!doctype html>\n<html><body style="margin:0">\n${PRE}\n<p style="border-radius:4px">Hi</p>\n</body></html>`
    const report = await checkEmail({ html, text: TEXT })
    const notes = report.findings.filter((f) => f.check === 'clients')
    expect(notes.length).toBeGreaterThan(0)
    for (const note of notes)
      expect(note.message).not.toMatch(/[a-z]+\.(?:windows|macos|ios|android|desktop-webmail)/)
    expect(report.clients.find((c) => c.client === 'outlook.windows')).toMatchObject({
      name: 'Outlook (Windows)',
    })
  })

  it('say once what several features share: one note per set of clients that lack them', async () => {
    // overflow (in the preheader) and border-radius: both lacking in Outlook on Windows only.
    const html = `<!doctype html>\n<html><body>\n${PRE}\n<p style="border-radius:4px">Hi</p>\n</body></html>`
    const notes = (await checkEmail({ html, text: TEXT })).findings.filter(
      (f) => f.check === 'clients',
    )
    const outlookOnly = notes.filter((f) =>
      f.message.endsWith('not supported by Outlook (Windows).'),
    )
    expect(outlookOnly).toHaveLength(1)
    expect(outlookOnly[0]!.message).toContain('border-radius')
    expect(outlookOnly[0]!.message).toContain('overflow')
    // No two notes say the same thing.
    const messages = notes.map((f) => f.message)
    expect(new Set(messages).size).toBe(messages.length)
  })
})
