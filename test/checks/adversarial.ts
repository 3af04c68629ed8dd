/**
 * Adversarial emails, each a shape grown to `n` repeats: what made a check's time grow with the
 * square of the email's size (or overflow the stack), and what a real email does a lot of. Shared
 * by test/checks/linear.test.ts and `npm run bench:check`. Each is a few bytes a repeat, so that
 * `n` of 100,000 or so makes about 1 MiB.
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
  'huge style attribute': (n) =>
    `<p style="${Array.from({ length: n / 2 }, (_, i) => `padding:${i}px`).join(';')};color:#777">Grey</p>`,
  'nested links': (n) => `${'<a href="https://a.test">'.repeat(n / 2)}More${'</a>'.repeat(n / 2)}`,
  'text at every level': (n) =>
    `${'<div style="color:#999">Grey '.repeat(n / 4)}${'</div>'.repeat(n / 4)}`,
  // Text at every level, flat: a low_contrast finding each, as deep as no cap cuts.
  'grey paragraphs': (n) => '<p style="color:#999">Grey</p>'.repeat(n / 3),
  'nested tables': (n) =>
    `${'<table><tr><td>'.repeat(n / 4)}$1.00${'</td></tr></table>'.repeat(n / 4)}`,
  'thousands of tables': (n) =>
    '<table><tr><td>Tea</td><td>$1.00</td></tr><tr><td>Total</td><td>$1.00</td></tr></table>'.repeat(
      n / 10,
    ),
  'thousands of links': (n) =>
    Array.from({ length: n / 6 }, (_, i) => `<a href="https://a.test/${i}">Read more</a>`).join(''),
  'thousands of images': (n) =>
    Array.from({ length: n / 6 }, (_, i) => `<img src="https://a.test/${i}.png">`).join(''),
  'long text runs': (n) => `<p style="font-size:12px;color:#888">${'word '.repeat(n * 2)}</p>`,
  'descendant rules on deep nesting': (n) =>
    `<style>${'x div { color: #777 } '.repeat(n / 20)}</style>${'<div>'.repeat(n / 2)}Deep${'</div>'.repeat(n / 2)}`,
  'nth-child among siblings': (n) =>
    `<style>${'p:nth-child(2n+1) { color: #777 } '.repeat(n / 50)}</style><div>${'<p>x</p>'.repeat(n / 2)}</div>`,
  'a rule per class': (n) =>
    `<style>${Array.from({ length: n / 20 }, (_, i) => `.c${i} { color: #777 }`).join(' ')}</style>${Array.from({ length: n / 20 }, (_, i) => `<p class="c${i}">x</p>`).join('')}`,
  'many @media blocks': (n) =>
    `<style>.m { display: none } ${'@media (max-width: 600px) { .m { display: block; color: #999 } } '.repeat(n / 40)}</style>${'<p class="m">Phone</p>'.repeat(n / 20)}`,
  'many style blocks': (n) => '<style>p { color: #777 }</style><p>x</p>'.repeat(n / 20),
}

/** A whole email around an adversarial body. */
export const adversarialEmail = (body: string) =>
  `<!doctype html><html lang="en"><head><title>Adversarial</title></head><body>${body}</body></html>`
