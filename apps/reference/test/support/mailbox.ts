import type { PostgresClient } from '@portcullis/postgres'
import type { Locator, Page } from 'playwright-core'

/**
 * The mails to `to` in the development mailbox whose subject matches, read once every message written for
 * `accountId` has left the outbox (the drain deletes a row once its SMTP server took it): a duplicate
 * written beside the first would be in the mailbox by then too. Bounded to 20 s.
 */
export async function settledMailsTo(
  page: Page,
  app: { readonly url: string; readonly postgres: PostgresClient },
  options: { readonly to: string; readonly accountId: string; readonly subject: RegExp },
): Promise<Locator> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const { rows } = await app.postgres.pool.query<{ waiting: number }>(
      "select count(*)::int as waiting from portcullis_mail_outbox where account_id = $1 and state = 'pending'",
      [options.accountId],
    )
    if (rows[0]?.waiting === 0) break
    if (Date.now() > deadline) throw new Error(`mail for ${options.accountId} is still waiting in the outbox`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await page.goto(`${app.url}/dev/mailbox`)
  return page
    .locator('article.mail', { has: page.locator('[data-testid="mail-to"]', { hasText: options.to }) })
    .filter({ has: page.locator('[data-testid="mail-subject"]', { hasText: options.subject }) })
}

/**
 * The mails to `to` in the development mailbox (newest first) whose subject matches, once at least
 * `count` of them arrived: reloads `/dev/mailbox` until then (the drain sends after commit). Bounded to
 * 20 s.
 */
export async function arrivedMailsTo(
  page: Page,
  appUrl: string,
  options: { readonly to: string; readonly subject: RegExp; readonly count?: number },
): Promise<Locator> {
  const count = options.count ?? 1
  const deadline = Date.now() + 20_000
  for (;;) {
    await page.goto(`${appUrl}/dev/mailbox`)
    const match = page
      .locator('article.mail', { has: page.locator('[data-testid="mail-to"]', { hasText: options.to }) })
      .filter({ has: page.locator('[data-testid="mail-subject"]', { hasText: options.subject }) })
    if ((await match.count()) >= count) return match
    if (Date.now() > deadline)
      throw new Error(`no ${count} mail(s) to ${options.to} matching ${options.subject}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
