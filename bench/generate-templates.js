// Writes N templates that look like a real project's: one layout, three partials, a loop, and
// a fixture per template. Used by the start-up and `check` benchmarks.
//   node bench/generate-templates.js DIR [N=300]   → DIR/templates, DIR/fixtures
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export async function generateTemplates(dir, n = 300) {
  const templates = join(dir, 'templates')
  const fixtures = join(dir, 'fixtures')
  await mkdir(join(templates, 'layouts'), { recursive: true })
  await mkdir(join(templates, 'partials'), { recursive: true })
  await mkdir(fixtures, { recursive: true })
  await writeFile(
    join(templates, 'layouts', 'base.liquid'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{ title }}</title>
<style>body{margin:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif}.card{background:#fff;border-radius:8px;padding:24px}@media (prefers-color-scheme: dark){body{background:#18181b;color:#fafafa}.card{background:#27272a}}</style></head>
<body><div style="display:none;max-height:0;overflow:hidden">{{ preheader }}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" class="card"><tr><td>{% block content %}{% endblock %}</td></tr></table>
{% render 'partials/footer', company: company %}
</td></tr></table></body></html>
`,
  )
  await writeFile(
    join(templates, 'partials', 'footer.liquid'),
    `<p style="color:#71717a;font-size:12px;text-align:center">{{ company }} · <a href="https://example.com/unsubscribe" style="color:#71717a">Unsubscribe</a></p>\n`,
  )
  await writeFile(
    join(templates, 'partials', 'button.liquid'),
    `<a href="{{ url }}" style="display:inline-block;background:#2563eb;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none">{{ label }}</a>\n`,
  )
  await writeFile(
    join(templates, 'partials', 'item.liquid'),
    `<tr><td style="padding:4px 0">{{ item.name }}</td><td align="right" style="padding:4px 0">{{ item.price }}</td></tr>\n`,
  )
  for (let i = 0; i < n; i++) {
    const slug = `message-${String(i).padStart(3, '0')}`
    await writeFile(
      join(templates, `${slug}.liquid`),
      `---
description: Generated message ${i}
---
{% layout 'layouts/base' %}
{% block content %}
<h1 style="font-size:22px;margin:0 0 16px">Hello {{ user.name }}, update ${i}</h1>
<p style="line-height:1.5">Message number ${i} for {{ user.email }}. Your order {{ order.id }} has {{ order.items | size }} items.</p>
<table role="presentation" width="100%">{% for item in order.items %}{% render 'partials/item', item: item %}{% endfor %}</table>
<p>{% render 'partials/button', url: actionUrl, label: "View order" %}</p>
{% endblock %}
`,
    )
    await writeFile(
      join(fixtures, `${slug}.json`),
      JSON.stringify({
        title: `Update ${i}`,
        preheader: `Order update ${i}`,
        company: 'Acme',
        user: { name: 'Ada', email: 'ada@example.com' },
        order: {
          id: `A-${i}`,
          items: [
            { name: 'Widget', price: '$5' },
            { name: 'Gadget', price: '$7' },
          ],
        },
        actionUrl: `https://example.com/orders/${i}`,
      }),
    )
  }
  return { templates, fixtures }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, n] = process.argv.slice(2)
  await generateTemplates(dir, Number(n ?? 300))
}
