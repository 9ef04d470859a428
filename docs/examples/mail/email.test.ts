// The mail port as docs/email.md shows it: typed messages through a memory mailer, templates replaced
// per message and per locale, and the SMTP transport sending over STARTTLS to a real SMTP server in this
// process (smtp-server, with a certificate made by openssl at run time).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  defaultMailTemplates,
  html,
  MailError,
  type Mailer,
  type MailMessage,
  MailRenderer,
  MemoryMailer,
  overrideTemplates,
  templatesByLocale,
} from '@portcullis/core/mail'
import { SmtpMailer } from '@portcullis/mail'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import { afterAll, beforeAll, expect, it } from 'vitest'

function certificate(): { key: string; cert: string } {
  const folder = mkdtempSync(join(tmpdir(), 'portcullis-docs-smtp-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=docs',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    )
    return {
      key: readFileSync(join(folder, 'key.pem'), 'utf8'),
      cert: readFileSync(join(folder, 'cert.pem'), 'utf8'),
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

const tls = certificate()
const received: ParsedMail[] = []
let server: SMTPServer
let port = 0

beforeAll(async () => {
  const options: SMTPServerOptions = {
    logger: false,
    authMethods: ['PLAIN'],
    onAuth: (auth, _session, callback) =>
      auth.username === 'mailer' && auth.password === 'from-your-secret-store'
        ? callback(null, { user: 'mailer' })
        : callback(Object.assign(new Error('no'), { responseCode: 535 })),
    onData: (stream, _session, callback) => {
      simpleParser(stream).then((mail) => {
        received.push(mail)
        callback()
      }, callback)
    },
  }
  server = new SMTPServer({ ...options, ...tls } as SMTPServerOptions)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.server.address() as AddressInfo).port
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

it('sends a typed message through the port (a memory mailer in tests)', async () => {
  // #region port
  async function remindToVerify(mailer: Mailer, address: string, code: string): Promise<void> {
    const message: MailMessage = {
      kind: 'verification',
      to: { address, name: 'Ada' },
      locale: 'en',
      code,
      link: 'https://app.example/verify',
      validForMinutes: 24 * 60,
    }
    await mailer.send(message)
  }

  const mailer = new MemoryMailer(new MailRenderer({ templates: defaultMailTemplates, appName: 'Example' }))
  await remindToVerify(mailer, 'ada@example.com', '482913')
  const [sent] = mailer.take()
  // sent.subject: 'Verify your email address for Example'; sent.text and sent.html hold the code
  // #endregion port
  expect(sent?.subject).toBe('Verify your email address for Example')
  expect(sent?.text).toContain('valid for 1 day')
  expect(sent?.html).toContain('<strong>482913</strong>')
})

it('replaces one template, and picks templates by locale', () => {
  // #region templates
  const french = overrideTemplates(defaultMailTemplates, {
    'password-reset': (message, { appName }) => ({
      subject: `Réinitialiser votre mot de passe ${appName}`,
      text: `Bonjour,\n\nVotre code : ${message.code}\n\nSi ce n'était pas vous, ignorez ce message.\n`,
      // every value in html`...` is escaped; nested html`...` is kept as markup
      html: html`<p>Bonjour ${message.to.name},</p><p>Votre code : <strong>${message.code}</strong></p>`,
      language: 'fr',
    }),
  })
  const templates = templatesByLocale({ fr: french }, defaultMailTemplates)
  const renderer = new MailRenderer({ templates, appName: 'Exemple' })
  // #endregion templates
  const reset = (locale: string) =>
    renderer.render({
      kind: 'password-reset',
      to: { address: 'ada@example.com', name: '<Ada>' },
      locale,
      code: '482913',
      validForMinutes: 60,
    })
  expect(reset('fr-CA')).toMatchObject({
    subject: 'Réinitialiser votre mot de passe Exemple',
    language: 'fr',
  })
  expect(reset('fr-CA').html).toContain('Bonjour &#60;Ada&#62;,')
  expect(reset('en').subject).toBe('Reset your Exemple password')
})

it('sends over SMTP with STARTTLS and AUTH, and says whether a failure may be retried', async () => {
  const smtpPort = port
  const providerCa = tls.cert
  // #region smtp
  const mailer = new SmtpMailer({
    host: '127.0.0.1',
    port: smtpPort, // 587 by default for 'starttls', 465 for 'tls'
    security: 'starttls', // the server must offer STARTTLS, or nothing is sent
    auth: { user: 'mailer', pass: 'from-your-secret-store' },
    ca: providerCa, // only for a private CA: certificates are always verified
    from: { address: 'security@example.com', name: 'Example' },
    appName: 'Example',
    maxConnections: 5,
  })
  // #endregion smtp
  // #region errors
  try {
    await mailer.send({
      kind: 'security-notification',
      to: { address: 'ada@example.com', name: 'Ada' },
      locale: 'en',
      change: { type: 'factor-added', factor: 'passkey', label: 'Laptop' },
      occurredAt: new Date(),
      reviewLink: 'https://app.example/account/security',
    })
  } catch (error) {
    if (error instanceof MailError && error.retryable) {
      // 4xx, a server down or silent, refused credentials: keep the message and try again later
    } else {
      // 5xx to this message, or a malformed message: sending it again will fail again
    }
    throw error
  }
  // #endregion errors
  mailer.close()
  expect(received.map((mail) => mail.subject)).toEqual(['A sign-in method was added'])
  expect(received[0]?.text).toContain('A passkey (Laptop) was added to your account.')
})
