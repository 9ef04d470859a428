import { PostgresAccountStore } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAccountId, demoEmailAddress } from '../../src/accounts/local-accounts.js'
import { startAppMail } from '../../src/mail/app-mail.js'
import { DEFAULT_MAIL_FROM, parseSmtpUrl } from '../../src/mail/mail-settings.js'
import { expectPrinted, printedSamples } from '../support/printed-samples.js'
import { startTestApp, type TestApp } from '../support/reference-app.js'

/**
 * Mail in development: the app runs its own SMTP server and shows what it received at `/dev/mailbox`;
 * the demo users have verified addresses, also on a database made before accounts had any.
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  await app?.close()
})

describe('the development mailbox', () => {
  it('is a page that is never cached and sends no referrer (it shows codes and links)', async () => {
    const answer = await fetch(`${app.url}/dev/mailbox`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await answer.text()).toContain('Development mailbox')
    expect(app.running.mail).toBe(
      `mail: development mailbox at ${app.url}/dev/mailbox (an SMTP server in this process; SMTP_URL sends real mail)`,
    )
  })

  it('does not exist when the app runs without it (production, or SMTP_URL)', async () => {
    const without = await startTestApp({ mail: { developmentMailbox: false, from: DEFAULT_MAIL_FROM } })
    try {
      expect((await fetch(`${without.url}/dev/mailbox`)).status).toBe(404)
      expect(without.running.mail).toContain('mail: no server (set SMTP_URL)')
    } finally {
      await without.close()
    }
  })
})

describe('the demo users’ addresses', () => {
  it('each demo user has one verified primary address', async () => {
    const store = new PostgresAccountStore({ client: app.postgres })
    for (const username of ['alice', 'bob', 'carol']) {
      const addresses = await store.listEmailAddresses(demoAccountId(username))
      expect(addresses.map(({ address, verified, primary }) => ({ address, verified, primary }))).toEqual([
        { address: demoEmailAddress(username), verified: true, primary: true },
      ])
    }
    expect(app.running.demoUsers.map((user) => user.email)).toEqual([
      'alice@demo.portcullis.invalid',
      'bob@demo.portcullis.invalid',
      'carol@demo.portcullis.invalid',
    ])
  })

  it('a database whose demo accounts have no address gets them at the next start; a changed one is kept', async () => {
    // As before accounts had addresses: bob has none. Carol moved to an address of her own.
    await app.postgres.pool.query('DELETE FROM portcullis_email_addresses WHERE account_id = $1', [
      demoAccountId('bob'),
    ])
    const store = new PostgresAccountStore({ client: app.postgres })
    const now = new Date()
    const carol = demoAccountId('carol')
    await store.addEmailAddress({ accountId: carol, address: 'carol@home.example', now })
    await store.verifyEmailAddress({
      accountId: carol,
      address: 'carol@home.example',
      now,
      makePrimary: true,
    })
    await store.removeEmailAddress({ accountId: carol, address: demoEmailAddress('carol'), now })
    const again = await startTestApp(() => ({ databaseUrl: app.database.connectionString }))
    try {
      const bob = await store.listEmailAddresses(demoAccountId('bob'))
      expect(bob.map((each) => [each.address, each.verified, each.primary])).toEqual([
        [demoEmailAddress('bob'), true, true],
      ])
      expect((await store.listEmailAddresses(carol)).map((each) => each.address)).toEqual([
        'carol@home.example',
      ])
      expect(again.running.demoUsers.find((user) => user.username === 'carol')?.email).toBeUndefined()
    } finally {
      await again.close()
    }
  })
})

describe('the start’s line about mail', () => {
  it('is what docs/reference-app.md shows, for the mailbox, SMTP_URL and no server, without credentials', async () => {
    const lines: string[] = []
    for (const settings of [
      { developmentMailbox: true, from: DEFAULT_MAIL_FROM },
      {
        smtp: parseSmtpUrl('smtp://mailer:secret@smtp.example.com'),
        developmentMailbox: false,
        from: DEFAULT_MAIL_FROM,
      },
      { developmentMailbox: false, from: DEFAULT_MAIL_FROM },
    ]) {
      const mail = await startAppMail(settings, 'http://127.0.0.1:3000/dev/mailbox')
      lines.push(mail.description)
      await mail.close()
    }
    expect(lines.join('\n')).not.toContain('secret')
    const samples = printedSamples('start-mail-line')
    expect(samples.map((sample) => sample.file)).toEqual(['docs/reference-app.md'])
    for (const sample of samples) expectPrinted(sample, lines.join('\n'))
  })
})
