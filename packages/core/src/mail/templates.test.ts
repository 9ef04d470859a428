import { describe, expect, it } from 'vitest'
import { defaultMailTemplates } from './default-templates.js'
import { MailError } from './errors.js'
import { html } from './html.js'
import { MemoryMailer } from './mailer.js'
import {
  MAIL_MESSAGE_KINDS,
  type MailMessage,
  SECURITY_CHANGE_TYPES,
  type SecurityChange,
} from './messages.js'
import { MailRenderer, overrideTemplates, templatesByLocale } from './templates.js'

const renderer = new MailRenderer({ templates: defaultMailTemplates, appName: 'Example' })
const to = { address: 'ada@example.com', name: 'Ada <script>alert(1)</script> & Co' }

const CHANGES: Record<SecurityChange['type'], SecurityChange> = {
  'password-changed': { type: 'password-changed' },
  'password-reset': { type: 'password-reset' },
  'address-added': { type: 'address-added', address: 'ada@work.example' },
  'address-changed': { type: 'address-changed', address: 'ada@new.example' },
  'address-removed': { type: 'address-removed', address: 'ada@old.example' },
  'factor-added': { type: 'factor-added', factor: 'passkey', label: 'Laptop <b>' },
  'factor-removed': { type: 'factor-removed', factor: 'totp' },
  'identity-linked': { type: 'identity-linked', provider: 'GitHub' },
  'identity-unlinked': { type: 'identity-unlinked', provider: 'Google' },
  'mcp-client-connected': { type: 'mcp-client-connected', client: 'Claude "desktop"' },
}

function sample(kind: MailMessage['kind']): MailMessage {
  const base = { to, locale: 'en' }
  switch (kind) {
    case 'verification':
    case 'password-reset':
    case 'email-change-verification':
    case 'sign-in-code':
      return {
        kind,
        ...base,
        code: '482913',
        link: 'https://app.example/confirm?code=482913&x=<y>',
        validForMinutes: 60,
      }
    case 'email-change-notice':
      return {
        kind,
        ...base,
        newAddress: 'ada@new.example',
        undoLink: 'https://app.example/undo?t=1',
        undoValidForDays: 7,
      }
    case 'security-notification':
      return {
        kind,
        ...base,
        change: CHANGES['password-changed'],
        occurredAt: new Date('2026-12-01T10:20:00Z'),
      }
    case 'existing-account-sign-up':
      return {
        kind,
        ...base,
        signInLink: 'https://app.example/sign-in',
        resetLink: 'https://app.example/reset',
      }
    case 'unknown-account-reset':
      return { kind, ...base, signUpLink: 'https://app.example/sign-up' }
    case 'invitation':
      return {
        kind,
        ...base,
        organizationName: 'Acme <b>',
        code: 'K7M2Q9T4W8XZ',
        link: 'https://app.example/organizations/invitations/accept?flow=x#code=K7M2Q9T4W8XZ',
        validForDays: 7,
      }
  }
}

function failure(run: () => unknown): MailError {
  try {
    run()
  } catch (error) {
    if (error instanceof MailError) return error
    throw error
  }
  throw new Error('expected a MailError')
}

describe('the default English templates', () => {
  it.each(MAIL_MESSAGE_KINDS.map((kind) => [kind]))('%s renders a subject, text and escaped HTML', (kind) => {
    const mail = renderer.render(sample(kind))
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.subject.length).toBeGreaterThan(5)
    expect(mail.language).toBe('en')
    expect(mail.text).toContain('Hello Ada <script>alert(1)</script> & Co,')
    expect(mail.html).toContain('Hello Ada &#60;script&#62;alert(1)&#60;/script&#62; &#38; Co,')
    expect(mail.html).not.toContain('<script>')
    expect(mail.html.startsWith('<!doctype html>')).toBe(true)
    // every message says what to do when it was not the person
    expect(mail.text).toMatch(/not you|not me/i)
    expect(mail.html).toMatch(/not you|not me/i)
  })

  it('puts the code in both parts, and the link escaped as an attribute', () => {
    const mail = renderer.render(sample('password-reset'))
    expect(mail.subject).toBe('Reset your Example password')
    expect(mail.text).toContain('    482913')
    expect(mail.text).toContain('valid for 1 hour')
    expect(mail.text).toContain('https://app.example/confirm?code=482913&x=%3Cy%3E')
    expect(mail.html).toContain('<strong>482913</strong>')
    expect(mail.html).toContain('href="https://app.example/confirm?code=482913&#38;x=%3Cy%3E"')
  })

  it.each(SECURITY_CHANGE_TYPES.map((type) => [type]))('names the change %s', (type) => {
    const mail = renderer.render({
      ...(sample('security-notification') as object),
      change: CHANGES[type],
    } as MailMessage)
    expect(mail.text).toContain('2026-12-01 10:20 UTC')
    const change = CHANGES[type]
    const named =
      'address' in change
        ? change.address
        : 'provider' in change
          ? change.provider
          : 'client' in change
            ? change.client
            : undefined
    if (named !== undefined) expect(mail.text).toContain(named)
    expect(mail.html).not.toContain('<b>')
    expect(mail.html).not.toContain('"desktop"')
  })

  it('tells the old address where the account is moving and how to undo it', () => {
    const mail = renderer.render(sample('email-change-notice'))
    expect(mail.text).toContain('ada@new.example')
    expect(mail.text).toContain('https://app.example/undo?t=1')
    expect(mail.text).toContain('within 7 days')
  })
})

describe('replacing templates', () => {
  const mine = overrideTemplates(defaultMailTemplates, {
    'password-reset': (message, context) => ({
      subject: `${context.appName}: ${message.locale} reset`,
      text: `code ${message.code}`,
      html: html`<p>${message.code} for ${message.to.name}</p>`,
      language: 'fr',
    }),
  })

  it('replaces one kind and keeps the others, the locale passed through', () => {
    const custom = new MailRenderer({ templates: mine, appName: 'Exemple' })
    const reset = custom.render({ ...(sample('password-reset') as object), locale: 'fr-CA' } as MailMessage)
    expect(reset).toMatchObject({ subject: 'Exemple: fr-CA reset', text: 'code 482913', language: 'fr' })
    expect(reset.html).toBe('<p>482913 for Ada &#60;script&#62;alert(1)&#60;/script&#62; &#38; Co</p>')
    expect(custom.render(sample('verification')).subject).toBe('Verify your email address for Exemple')
  })

  it('picks a set by locale, then by language, then the fallback', () => {
    const byLocale = new MailRenderer({
      templates: templatesByLocale({ FR: mine }, defaultMailTemplates),
      appName: 'X',
    })
    const reset = (locale: string) =>
      byLocale.render({ ...(sample('password-reset') as object), locale } as MailMessage).subject
    expect(reset('fr')).toBe('X: fr reset')
    expect(reset('fr-CA')).toBe('X: fr-CA reset')
    expect(reset('de')).toBe('Reset your X password')
  })

  it('refuses a subject with a line break from a template (mail.header_injection)', () => {
    const evil = new MailRenderer({
      templates: overrideTemplates(defaultMailTemplates, {
        verification: () => ({ subject: 'Hi\r\nBcc: eve@evil.example', text: 't', html: html`h` }),
      }),
      appName: 'X',
    })
    const error = failure(() => evil.render(sample('verification')))
    expect(error).toMatchObject({ code: 'mail.header_injection', field: 'subject', retryable: false })
  })

  it('refuses HTML that did not go through html`...`, and a template that throws', () => {
    const raw = new MailRenderer({
      templates: overrideTemplates(defaultMailTemplates, {
        verification: () => ({ subject: 's', text: 't', html: '<p>raw</p>' as never }),
        'sign-in-code': () => {
          throw new Error('boom with secret 482913')
        },
      }),
      appName: 'X',
    })
    expect(failure(() => raw.render(sample('verification'))).code).toBe('mail.template_failed')
    const thrown = failure(() => raw.render(sample('sign-in-code')))
    expect(thrown.code).toBe('mail.template_failed')
    expect(thrown.message).not.toContain('482913')
    expect(thrown.cause).toBeUndefined()
  })

  it('refuses a template set with a member that is not a function', () => {
    expect(
      failure(
        () =>
          new MailRenderer({
            templates: { ...defaultMailTemplates, verification: 'x' as never },
            appName: 'X',
          }),
      ).code,
    ).toBe('mail.template_failed')
  })
})

describe('checking messages before any template runs', () => {
  const base = sample('verification') as unknown as Record<string, unknown>
  it.each([
    [
      { ...base, to: { address: 'ada@example.com', name: 'Ada\r\nBcc: eve@evil.example' } },
      'mail.header_injection',
      'to.name',
    ],
    [
      { ...base, to: { address: 'ada@example.com\r\nBcc: eve@evil.example' } },
      'mail.header_injection',
      'to.address',
    ],
    [{ ...base, to: { address: 'not an address' } }, 'mail.invalid_address', 'to.address'],
    [{ ...base, link: 'javascript:alert(1)' }, 'mail.invalid_message', 'link'],
    [{ ...base, link: 'https://user:pass@app.example/x' }, 'mail.invalid_message', 'link'],
    [{ ...base, link: '/relative' }, 'mail.invalid_message', 'link'],
    [{ ...base, code: '' }, 'mail.invalid_message', 'code'],
    [{ ...base, code: '12\r\n34' }, 'mail.invalid_message', 'code'],
    [{ ...base, validForMinutes: 0 }, 'mail.invalid_message', 'validForMinutes'],
    [{ ...base, locale: 'en\r\nX: y' }, 'mail.invalid_message', 'locale'],
    [{ ...base, kind: 'newsletter' }, 'mail.invalid_message', 'kind'],
    [
      { ...sample('security-notification'), change: { type: 'identity-linked', provider: 'Git\nHub' } },
      'mail.header_injection',
      'change.provider',
    ],
    [
      { ...sample('security-notification'), occurredAt: new Date(Number.NaN) },
      'mail.invalid_message',
      'occurredAt',
    ],
    [
      { ...sample('email-change-notice'), newAddress: 'x@y.example\nBcc: z@evil.example' },
      'mail.header_injection',
      'newAddress',
    ],
  ])('refuses %j', (message, code, field) => {
    expect(failure(() => renderer.render(message as unknown as MailMessage))).toMatchObject({
      code,
      field,
      retryable: false,
    })
  })

  it('hands a template only the members of the kind', () => {
    let seen: unknown
    const spy = new MailRenderer({
      templates: overrideTemplates(defaultMailTemplates, {
        verification: (message) => {
          seen = message
          return { subject: 's', text: 't', html: html`h` }
        },
      }),
      appName: 'X',
    })
    spy.render({ ...base, bcc: 'eve@evil.example', headers: { 'X-Evil': '1' } } as unknown as MailMessage)
    expect(Object.keys(seen as object).sort()).toEqual([
      'code',
      'kind',
      'link',
      'locale',
      'to',
      'validForMinutes',
    ])
  })
})

describe('the memory mailer', () => {
  it('renders and keeps what it sends, with the idempotency key in the Message-ID', async () => {
    const mailer = new MemoryMailer(renderer)
    expect(await mailer.send(sample('sign-in-code'), { idempotencyKey: 'outbox-17' })).toEqual({
      messageId: '<outbox-17@portcullis.invalid>',
    })
    await expect(mailer.send(sample('sign-in-code'), { idempotencyKey: 'a b' })).rejects.toMatchObject({
      code: 'mail.invalid_message',
      field: 'idempotencyKey',
    })
    const [sent, ...rest] = mailer.take()
    expect(rest).toEqual([])
    expect(sent?.subject).toBe('Your Example sign-in code')
    expect(mailer.sent).toEqual([])
  })
})
