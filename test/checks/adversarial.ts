/**
 * Adversarial emails, each a shape grown to `n` repeats: what made a check's time grow with the
 * square of the email's size (or overflow the stack). Shared by test/checks/linear.test.ts and
 * `npm run bench:check`.
 */
export const ADVERSARIAL: Record<string, (n: number) => string> = {
  'deep nesting': (n) => `${'<div>'.repeat(n)}Deep${'</div>'.repeat(n)}`,
  'unclosed tags': (n) => `${'<b>'.repeat(n)}Deep${'</i>'.repeat(n / 10)}`,
  'aria-labelledby lists': (n) =>
    `<div id="d">${'<i>x</i>'.repeat(n / 10)}</div><a href="https://a.test" aria-labelledby="${'d '.repeat(n)}">x</a>`,
  'thousands of ids': (n) =>
    `${Array.from({ length: n / 4 }, (_, i) => `<span id="i${i}">w</span>`).join('')}<a href="https://a.test" aria-labelledby="${Array.from({ length: n / 4 }, (_, i) => `i${i}`).join(' ')}"></a>`,
  'long attribute lists': (n) =>
    `<p ${Array.from({ length: n / 2 }, (_, i) => `data-a${i}="v"`).join(' ')} style="${'color:#777;'.repeat(n / 2)}">Grey</p>`,
  'nested links': (n) => `${'<a href="https://a.test">'.repeat(n / 2)}More${'</a>'.repeat(n / 2)}`,
  'nested tables': (n) =>
    `${'<table><tr><td>'.repeat(n / 4)}$1.00${'</td></tr></table>'.repeat(n / 4)}`,
  'descendant rules on deep nesting': (n) =>
    `<style>${'x div { color: #777 } '.repeat(n / 20)}</style>${'<div>'.repeat(n / 2)}Deep${'</div>'.repeat(n / 2)}`,
  'nth-child among siblings': (n) =>
    `<style>${'p:nth-child(2n+1) { color: #777 } '.repeat(n / 50)}</style><div>${'<p>x</p>'.repeat(n / 2)}</div>`,
}

/** A whole email around an adversarial body. */
export const adversarialEmail = (body: string) =>
  `<!doctype html><html lang="en"><head><title>Adversarial</title></head><body>${body}</body></html>`
