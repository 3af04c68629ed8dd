/**
 * The send example the inbox shows while it has no message: a curl command that works as
 * written against the example templates (test/readme-examples.test.ts runs it). No DOM here, so
 * a test can import it.
 *
 * @example
 * sendExample('http://127.0.0.1:5025') // 'curl -s http://127.0.0.1:5025/messages \\\n  -H …'
 */
export function sendExample(origin: string, token = 'sandbox_local_dev_token'): string {
  return [
    `curl ${origin}/messages \\`,
    `  -H 'Authorization: token ${token}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"template": "welcome",`,
    `       "from": "Acme <hello@acme.test>",`,
    `       "to": "Ada <ada@example.com>",`,
    `       "subject": "Hello",`,
    `       "templateVariables": {`,
    `         "name": "Ada",`,
    `         "dashboardUrl": "https://acme.test/dashboard"}}'`,
  ].join('\n')
}
