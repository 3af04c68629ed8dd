import { afterAll, beforeAll, expect, it } from 'vitest'
import { MAX_ARMED_FAULTS } from '../../src/core/faults.js'
import { MAX_REJECTIONS } from '../../src/core/rejections.js'
import { errorOf, type TestSandbox } from '../helpers/sandbox.js'
import { onEachStore } from '../helpers/stores.js'

/**
 * Two projects on one sandbox, on both stores: what one project does never crowds out the
 * other's. Billing arms the most faults a project may, and acme still arms its first; billing,
 * and anyone sending with a token no project lists, are refused more sends than are kept, and
 * acme's one rejected send is still listed.
 */

const ACME = 'sandbox_acme_fair'
const BILLING = 'sandbox_billing_fair'
const ADMIN = 'sandbox_admin_fair'

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start(
      { 'welcome.liquid': '<p>Hi {{ name }}</p>' },
      {
        projects: {
          projects: { acme: { tokens: [ACME] }, billing: { tokens: [BILLING] } },
          admin: { tokens: [ADMIN] },
        },
      },
    )
  })
  afterAll(() => sandbox?.close())

  const arm = (token: string) =>
    sandbox.api('/_sandbox/api/faults', {
      method: 'POST',
      json: { status: 503, match: { to: 'nobody' } },
      auth: token,
    })

  it("the cap on armed faults counts each project's own", async () => {
    for (let i = 0; i < MAX_ARMED_FAULTS; i++) expect((await arm(BILLING)).status).toBe(201)
    const over = await arm(BILLING)
    expect(over.status).toBe(409)
    expect((await errorOf(over)).code).toBe('too_many_faults')
    // Acme's list is empty, and its first fault is armed.
    expect((await arm(ACME)).status).toBe(201)
  })

  it('rejections keep the newest of each project, and those without a valid token apart', async () => {
    const refused = (token: string, subject: string) =>
      sandbox.send({ template: 'nope', from: 'a@acme.test', to: 'x@example.com', subject }, token)
    expect((await refused(ACME, 'acme-only')).status).toBe(422)
    for (let i = 0; i <= MAX_REJECTIONS; i++) {
      expect((await refused(BILLING, `billing-${i}`)).status).toBe(422)
      expect((await refused('sandbox_listed_nowhere', `stranger-${i}`)).status).toBe(403)
    }
    const listed = async (token: string) =>
      (
        (await (
          await sandbox.api('/_sandbox/api/rejections?limit=1000', { auth: token })
        ).json()) as {
          rejections: Array<{ subject: string | null; project: string | null }>
        }
      ).rejections
    expect((await listed(ACME)).map((r) => r.subject)).toEqual(['acme-only'])
    const billing = await listed(BILLING)
    expect(billing).toHaveLength(MAX_REJECTIONS)
    expect(billing[0]!.subject).toBe(`billing-${MAX_REJECTIONS}`)
    const all = await listed(ADMIN)
    const of = (project: string | null) => all.filter((r) => r.project === project)
    expect(of('acme').map((r) => r.subject)).toEqual(['acme-only'])
    expect(of('billing')).toHaveLength(MAX_REJECTIONS)
    expect(of(null)).toHaveLength(MAX_REJECTIONS)
  })
})
