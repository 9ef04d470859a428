import { SmtpMailer } from '@portcullis/mail'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAIL_APP_NAME } from './app-mail.js'
import { type DevelopmentMailbox, MAILBOX_CAPACITY, startDevelopmentMailbox } from './development-mailbox.js'
import { DEFAULT_MAIL_FROM } from './mail-settings.js'
import { linkedText } from './mailbox-page.js'

let mailbox: DevelopmentMailbox
let mailer: SmtpMailer

beforeAll(async () => {
  mailbox = await startDevelopmentMailbox()
  mailer = new SmtpMailer({
    host: mailbox.host,
    port: mailbox.port,
    security: 'plain',
    from: DEFAULT_MAIL_FROM,
    appName: MAIL_APP_NAME,
  })
})
afterAll(async () => {
  mailer?.close()
  await mailbox?.close()
})

describe('the development mailbox', () => {
  it('receives what SmtpMailer sends over SMTP: recipient, subject and the text with its link', async () => {
    const link = 'http://127.0.0.1:3000/reset?flow=f1#code=48291337'
    await mailer.send(
      {
        kind: 'password-reset',
        to: { address: 'alice@demo.portcullis.invalid', name: 'Alice Archer' },
        locale: 'en',
        code: '48291337',
        link,
        validForMinutes: 60,
      },
      { idempotencyKey: 'outbox-row-1' },
    )
    const [mail] = mailbox.list()
    expect(mail?.to).toEqual(['alice@demo.portcullis.invalid'])
    expect(mail?.from).toContain('no-reply@reference.portcullis.invalid')
    expect(mail?.subject).toMatch(/password/i)
    expect(mail?.text).toContain('48291337')
    expect(mail?.text).toContain(link)
    expect(mail?.messageId).toBe('<outbox-row-1@reference.portcullis.invalid>')
  })

  it('lists newest first and keeps the last messages only', async () => {
    for (const index of [1, 2]) {
      await mailer.send({
        kind: 'security-notification',
        to: { address: `n${index}@demo.portcullis.invalid` },
        locale: 'en',
        change: { type: 'password-reset' },
        occurredAt: new Date(),
      })
    }
    expect(
      mailbox
        .list()
        .slice(0, 3)
        .map((mail) => mail.to[0]),
    ).toEqual(['n2@demo.portcullis.invalid', 'n1@demo.portcullis.invalid', 'alice@demo.portcullis.invalid'])
    expect(MAILBOX_CAPACITY).toBeGreaterThanOrEqual(100)
  })
})

describe('a message text on the page', () => {
  it('makes http(s) links clickable, leaves the sentence punctuation out, and escapes everything else', () => {
    const text =
      'Open http://127.0.0.1:3000/reset?flow=a&b=1#code=9. Or <script>alert(1)</script> javascript:x'
    expect(linkedText(text).toString()).toBe(
      'Open <a href="http://127.0.0.1:3000/reset?flow=a&amp;b=1#code=9" rel="noreferrer">http://127.0.0.1:3000/reset?flow=a&amp;b=1#code=9</a>. Or &lt;script&gt;alert(1)&lt;/script&gt; javascript:x',
    )
  })
})
