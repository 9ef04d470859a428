// The SMTP mailer against a real SMTP server in this process: STARTTLS and implicit TLS with a
// certificate made at run time, AUTH, replies 451 and 550, a server that is down or silent, and
// header injection refused before anything connects.
import { createServer, type Server } from 'node:net'
import { inspect } from 'node:util'
import { MailError, type MailMessage } from '@portcullis/core/mail'
import { afterEach, describe, expect, it } from 'vitest'
import { SmtpMailer, type SmtpMailerOptions } from '../src/index.js'
import { CERTIFICATE, startSmtpServer, type TestSmtpServer, UNTRUSTED } from './support/smtp-server.js'

const PASSWORD = 'correct horse battery staple 7f3a'
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function server(options: Parameters<typeof startSmtpServer>[0] = {}): Promise<TestSmtpServer> {
  const started = await startSmtpServer(options)
  cleanups.push(() => started.close())
  return started
}

function mailer(port: number, options: Partial<SmtpMailerOptions> = {}): SmtpMailer {
  const created = new SmtpMailer({
    host: '127.0.0.1',
    port,
    security: 'starttls',
    ca: CERTIFICATE.cert,
    from: { address: 'security@example.com', name: 'Example Security' },
    appName: 'Example',
    timeouts: { connectionMs: 2_000, greetingMs: 2_000, socketMs: 5_000 },
    ...options,
  })
  cleanups.push(() => created.close())
  return created
}

const reset: MailMessage = {
  kind: 'password-reset',
  to: { address: 'ada@example.com', name: 'Ada "the Countess" Lovelace, <née Byron>' },
  locale: 'en-GB',
  code: '482913',
  link: 'https://app.example/reset?code=482913',
  validForMinutes: 60,
}

async function failure(promise: Promise<unknown>): Promise<MailError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof MailError) return error
    throw error
  }
  throw new Error('expected a MailError')
}

describe('delivery over real SMTP', () => {
  it('sends over STARTTLS with AUTH: text and HTML parts, the headers, nothing injected', async () => {
    const smtp = await server({ users: { sender: PASSWORD } })
    const receipt = await mailer(smtp.port, { auth: { user: 'sender', pass: PASSWORD } }).send(reset, {
      idempotencyKey: 'outbox-42',
    })
    expect(receipt.messageId).toBe('<outbox-42@example.com>')
    expect(smtp.received).toHaveLength(1)
    const [mail] = smtp.received
    expect(mail?.secure).toBe(true)
    expect(mail?.user).toBe('sender')
    expect(smtp.connections.secured).toBe(1)
    expect(mail?.envelope).toEqual({ from: 'security@example.com', to: ['ada@example.com'] })
    const parsed = mail?.parsed
    expect(parsed?.subject).toBe('Reset your Example password')
    expect(parsed?.messageId).toBe('<outbox-42@example.com>')
    expect(parsed?.from?.value).toEqual([{ address: 'security@example.com', name: 'Example Security' }])
    const to = Array.isArray(parsed?.to) ? parsed?.to[0] : parsed?.to
    expect(to?.value).toEqual([
      { address: 'ada@example.com', name: 'Ada "the Countess" Lovelace, <née Byron>' },
    ])
    expect(parsed?.cc).toBeUndefined()
    expect(parsed?.bcc).toBeUndefined()
    expect(parsed?.headers.get('auto-submitted')).toBe('auto-generated')
    expect(parsed?.headers.get('content-language')).toBe('en')
    expect(parsed?.text).toContain('482913')
    expect(parsed?.text).toContain('https://app.example/reset?code=482913')
    expect(parsed?.html).toContain('<strong>482913</strong>')
    expect(parsed?.html).toContain('Hello Ada &#34;the Countess&#34; Lovelace, &#60;née Byron&#62;,')
    // one header block, no header line beyond those nodemailer writes
    const headerNames = mail?.raw
      .split('\r\n\r\n')[0]
      ?.split('\r\n')
      .filter((line) => /^[A-Za-z-]+:/.test(line))
    expect(headerNames?.map((line) => line.split(':')[0]?.toLowerCase()).sort()).toEqual(
      [
        'auto-submitted',
        'content-language',
        'content-type',
        'date',
        'from',
        'message-id',
        'mime-version',
        'subject',
        'to',
      ].sort(),
    )
  })

  it('sends over implicit TLS', async () => {
    const smtp = await server({ secure: true })
    await mailer(smtp.port, { security: 'tls' }).send(reset)
    expect(smtp.received.map((mail) => mail.secure)).toEqual([true])
    expect(smtp.received[0]?.parsed.messageId).toMatch(/^<.+@.+>$/)
  })

  it('sends in clear text to a loopback server only when asked to', async () => {
    const smtp = await server({ starttls: false })
    await mailer(smtp.port, { security: 'plain' }).send(reset)
    expect(smtp.received.map((mail) => mail.secure)).toEqual([false])
    expect(
      () =>
        new SmtpMailer({
          host: 'smtp.example.com',
          security: 'plain',
          from: { address: 'a@example.com' },
          appName: 'X',
        }),
    ).toThrow(/loopback/)
  })

  it('pools connections: 20 messages at once over at most 2 connections', async () => {
    const smtp = await server()
    const pooled = mailer(smtp.port, { maxConnections: 2 })
    await Promise.all(Array.from({ length: 20 }, () => pooled.send(reset)))
    expect(smtp.received).toHaveLength(20)
    expect(smtp.connections.opened).toBeLessThanOrEqual(2)
  })
})

describe('refusals before anything connects', () => {
  it.each([
    [
      { ...reset, to: { address: 'ada@example.com', name: 'Ada\r\nBcc: eve@evil.example' } },
      'mail.header_injection',
    ],
    [{ ...reset, to: { address: 'ada@example.com\r\nBcc: eve@evil.example' } }, 'mail.header_injection'],
    [{ ...reset, to: { address: 'ada@example.com, eve@evil.example' } }, 'mail.invalid_address'],
    [{ ...reset, to: { address: 'Eve <eve@evil.example>' } }, 'mail.invalid_address'],
  ])('refuses %j, and the server sees no connection', async (message, code) => {
    const smtp = await server()
    const error = await failure(mailer(smtp.port).send(message as MailMessage))
    expect(error).toMatchObject({ code, retryable: false })
    expect(smtp.connections.opened).toBe(0)
  })

  it('refuses a name that is an encoded word, which a reader would decode to a line break and a Bcc', async () => {
    const smtp = await server()
    const encodedWord = `=?UTF-8?B?${Buffer.from('Ada\r\nBcc: eve@evil.example').toString('base64')}?=`
    const error = await failure(
      mailer(smtp.port).send({ ...reset, to: { address: 'ada@example.com', name: encodedWord } }),
    )
    expect(error).toMatchObject({ code: 'mail.header_injection', field: 'to.name', retryable: false })
    expect(smtp.connections.opened).toBe(0)
  })

  it('refuses a sender with a line break at construction', () => {
    expect(
      () =>
        new SmtpMailer({
          host: '127.0.0.1',
          security: 'tls',
          from: { address: 'a@example.com', name: 'A\nBcc: x@y.example' },
          appName: 'X',
        }),
    ).toThrow(expect.objectContaining({ code: 'mail.invalid_configuration', option: 'SmtpMailer.from' }))
  })
})

describe('failures, each saying whether a retry may help', () => {
  it('451 at RCPT TO: retryable', async () => {
    const smtp = await server({ rcptReply: 451 })
    const error = await failure(mailer(smtp.port).send(reset))
    expect(error).toMatchObject({
      code: 'mail.unavailable',
      retryable: true,
      responseCode: 451,
      command: 'RCPT TO',
    })
  })

  it('550 at RCPT TO: permanent', async () => {
    const smtp = await server({ rcptReply: 550 })
    const error = await failure(mailer(smtp.port).send(reset))
    expect(error).toMatchObject({ code: 'mail.rejected', retryable: false, responseCode: 550 })
    expect(smtp.received).toEqual([])
  })

  it('a server that is down: retryable, at once', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const started = Date.now()
    const error = await failure(mailer(closed).send(reset))
    expect(error).toMatchObject({ code: 'mail.unavailable', retryable: true })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('a server that accepts the connection and never greets: retryable after the greeting timeout', async () => {
    const silent: Server = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          silent.close(() => resolve())
        }),
    )
    const { port } = silent.address() as { port: number }
    const started = Date.now()
    const error = await failure(
      mailer(port, { timeouts: { connectionMs: 1_000, greetingMs: 300, socketMs: 1_000 } }).send(reset),
    )
    expect(error).toMatchObject({ code: 'mail.unavailable', retryable: true })
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('a server that does not offer STARTTLS: nothing is sent in clear text (retryable: a configuration matter)', async () => {
    const smtp = await server({ starttls: false })
    const error = await failure(mailer(smtp.port).send(reset))
    expect(error).toMatchObject({ code: 'mail.unavailable', retryable: true, command: 'STARTTLS' })
    expect(smtp.received).toEqual([])
  })

  it('a certificate nobody trusts: refused, nothing sent', async () => {
    const smtp = await server({ certificate: UNTRUSTED })
    const error = await failure(mailer(smtp.port).send(reset))
    expect(error).toMatchObject({ code: 'mail.unavailable', retryable: true })
    expect(smtp.received).toEqual([])
  })

  it('wrong credentials: mail.authentication_failed, and the password is in no message, JSON or inspect output', async () => {
    const smtp = await server({ users: { sender: 'the real one' } })
    const sender = mailer(smtp.port, { auth: { user: 'sender', pass: PASSWORD } })
    const error = await failure(sender.send(reset))
    expect(error).toMatchObject({ code: 'mail.authentication_failed', retryable: true, responseCode: 535 })
    const shown = [
      error.message,
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      String(error.stack),
      inspect(sender, { depth: 10, showHidden: true }),
      JSON.stringify(sender),
      String(sender),
    ].join('\n')
    expect(shown).not.toContain(PASSWORD)
    expect(shown).not.toContain(Buffer.from(`\0sender\0${PASSWORD}`).toString('base64'))
    expect(shown).not.toContain(Buffer.from(PASSWORD).toString('base64'))
    expect(shown).not.toContain('482913')
    expect(smtp.received).toEqual([])
  })

  it('after close: mail.closed, retryable', async () => {
    const smtp = await server()
    const closing = mailer(smtp.port)
    await closing.send(reset)
    closing.close()
    expect(await failure(closing.send(reset))).toMatchObject({ code: 'mail.closed', retryable: true })
  })

  it('verify() reports the same errors as send', async () => {
    const smtp = await server({ users: { sender: PASSWORD } })
    await mailer(smtp.port, { auth: { user: 'sender', pass: PASSWORD } }).verify()
    expect(
      await failure(mailer(smtp.port, { auth: { user: 'sender', pass: 'wrong' } }).verify()),
    ).toMatchObject({
      code: 'mail.authentication_failed',
    })
  })
})
