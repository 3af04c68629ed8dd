// A tiny application that sends its mail through the sendbox HTTP API: sign-in codes and
// password-reset links, with the pages a person (or Playwright) uses.
import { randomInt, randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface App {
  url: string
  close(): Promise<void>
}

/** Starts the app on a free port, sending mail through the sandbox at `apiUrl`. */
export async function startApp(apiUrl: string, token: string): Promise<App> {
  const codes = new Map<string, string>()
  const resets = new Map<string, string>()
  let url = ''
  const sendMail = async (template: string, to: string, subject: string, variables: object) => {
    const response = await fetch(`${apiUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template,
        from: 'Acme <hello@acme.test>',
        to,
        subject,
        templateVariables: variables,
      }),
    })
    if (!response.ok) throw new Error(`sending failed: ${response.status}`)
  }
  const page = (body: string) =>
    `<!doctype html><html lang="en"><title>Acme</title><main>${body}</main></html>`
  const htmlEscape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  const server = createServer(async (req, res) => {
    const form = new URLSearchParams(req.method === 'POST' ? await text(req) : '')
    const email = form.get('email') ?? ''
    let html: string
    if (req.url === '/sign-in' && req.method === 'POST') {
      const code = String(randomInt(100000, 1000000))
      codes.set(email, code)
      await sendMail('sign-in', email, 'Your sign-in code', { code })
      html = `<form method="post" action="/verify"><input type="hidden" name="email" value="${htmlEscape(email)}"><label>Code <input name="code" autocomplete="one-time-code"></label><button>Sign in</button></form>`
    } else if (req.url === '/verify' && req.method === 'POST') {
      html =
        codes.get(email) === form.get('code')
          ? `<h1>Signed in as ${htmlEscape(email)}</h1>`
          : '<h1>Wrong code</h1>'
    } else if (req.url === '/forgot' && req.method === 'POST') {
      const id = randomUUID()
      resets.set(id, email)
      await sendMail('password-reset', email, 'Reset your password', {
        email,
        url: `${url}/reset/${id}`,
      })
      html = '<h1>Check your email</h1>'
    } else if (req.url?.startsWith('/reset/')) {
      const who = resets.get(req.url.slice('/reset/'.length))
      html = who ? `<h1>Choose a new password for ${htmlEscape(who)}</h1>` : '<h1>Link expired</h1>'
    } else
      html = `<form method="post" action="/sign-in"><label>Email <input name="email" type="email"></label><button>Send me a code</button></form>
<form method="post" action="/forgot"><label>Email for a reset <input name="email" type="email"></label><button>Reset my password</button></form>`
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(html))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

async function text(req: AsyncIterable<Buffer>): Promise<string> {
  let body = ''
  for await (const chunk of req) body += chunk
  return body
}
