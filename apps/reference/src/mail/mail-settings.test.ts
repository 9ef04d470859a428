import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readConfig } from '../config.js'
import { DEFAULT_MAIL_FROM, parseMailFrom, parseSmtpUrl } from './mail-settings.js'

describe('SMTP_URL', () => {
  it('smtp:// requires STARTTLS, smtps:// is implicit TLS; user and password are percent-decoded', () => {
    expect(parseSmtpUrl('smtp://mailer:p%40ss%3Aword@mail.example:587')).toEqual({
      host: 'mail.example',
      port: 587,
      security: 'starttls',
      auth: { user: 'mailer', pass: 'p@ss:word' },
    })
    expect(parseSmtpUrl('smtps://mail.example')).toEqual({ host: 'mail.example', security: 'tls' })
    expect(parseSmtpUrl('smtp://[::1]:2525?security=plain')).toEqual({
      host: '::1',
      port: 2525,
      security: 'plain',
    })
  })

  it('refuses plain SMTP off loopback, other schemes, paths and options, and never repeats the URL', () => {
    const secret = 'hunter2-very-secret'
    const cases = [
      `smtp://u:${secret}@mail.example:25?security=plain`,
      `smtps://u:${secret}@127.0.0.1?security=plain`,
      `http://u:${secret}@mail.example`,
      `smtp://u:${secret}@mail.example/inbox`,
      `smtp://u:${secret}@mail.example?tls=off`,
      `smtp://:${secret}@mail.example`,
      `smtp://u:%E0%A4%A@mail.example`,
      'not a url',
    ]
    for (const value of cases) {
      let message = ''
      try {
        parseSmtpUrl(value)
      } catch (error) {
        message = (error as Error).message
      }
      expect(message, value).toMatch(/^SMTP_URL/)
      expect(message).not.toContain(secret)
    }
  })
})

describe('PORTCULLIS_MAIL_FROM', () => {
  it('takes an address or Name <address>, and refuses a line break in the name', () => {
    expect(parseMailFrom('security@app.example')).toEqual({ address: 'security@app.example' })
    expect(parseMailFrom('"Example Security" <security@app.example>')).toEqual({
      name: 'Example Security',
      address: 'security@app.example',
    })
    expect(() => parseMailFrom('Eve\r\nBcc: x@evil.example <security@app.example>')).toThrow(
      /^PORTCULLIS_MAIL_FROM/,
    )
    expect(() => parseMailFrom('not an address')).toThrow(/^PORTCULLIS_MAIL_FROM/)
  })
})

describe('where mail goes (readConfig)', () => {
  it('by default, the development mailbox on loopback outside production, from a name never delivered to', () => {
    expect(readConfig({}).mail).toEqual({ developmentMailbox: true, from: DEFAULT_MAIL_FROM })
  })

  it('no mailbox in production, off loopback or behind a public URL, unless asked (never in production)', () => {
    expect(readConfig({ NODE_ENV: 'production' }).mail?.developmentMailbox).toBe(false)
    expect(readConfig({ HOST: '0.0.0.0' }).mail?.developmentMailbox).toBe(false)
    expect(readConfig({ PORTCULLIS_PUBLIC_URL: 'https://demo.example' }).mail?.developmentMailbox).toBe(false)
    expect(readConfig({ HOST: '0.0.0.0', PORTCULLIS_DEV_MAILBOX: 'true' }).mail?.developmentMailbox).toBe(
      true,
    )
    expect(readConfig({ PORTCULLIS_DEV_MAILBOX: 'false' }).mail?.developmentMailbox).toBe(false)
    expect(() => readConfig({ NODE_ENV: 'production', PORTCULLIS_DEV_MAILBOX: 'true' })).toThrow(
      'PORTCULLIS_DEV_MAILBOX: a development setting, refused with NODE_ENV=production',
    )
  })

  it('SMTP_URL replaces the mailbox; PORTCULLIS_SMTP_CA adds the certificates of a private CA', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'portcullis-smtp-ca-'))
    try {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'
      await writeFile(join(folder, 'ca.pem'), `${pem}\n`)
      const mail = readConfig({
        SMTP_URL: 'smtp://mailer:secret@mail.example',
        PORTCULLIS_SMTP_CA: join(folder, 'ca.pem'),
        PORTCULLIS_MAIL_FROM: 'Example <security@app.example>',
      }).mail
      expect(mail).toEqual({
        smtp: {
          host: 'mail.example',
          security: 'starttls',
          auth: { user: 'mailer', pass: 'secret' },
          ca: [pem],
        },
        developmentMailbox: false,
        from: { name: 'Example', address: 'security@app.example' },
      })
      await writeFile(join(folder, 'empty.pem'), 'nothing here')
      expect(() =>
        readConfig({ SMTP_URL: 'smtp://mail.example', PORTCULLIS_SMTP_CA: join(folder, 'empty.pem') }),
      ).toThrow('holds no PEM certificate')
      expect(() => readConfig({ PORTCULLIS_SMTP_CA: join(folder, 'ca.pem') })).toThrow('set SMTP_URL too')
      expect(() => readConfig({ SMTP_URL: 'smtp://mail.example', PORTCULLIS_DEV_MAILBOX: 'true' })).toThrow(
        'choose one',
      )
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
