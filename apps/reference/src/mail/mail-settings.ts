import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type MailAddress, requireMailbox } from '@portcullis/core/mail'
import type { SmtpSecurity } from '@portcullis/mail'

// Where the app's mail goes. Without `SMTP_URL`, in development, to an SMTP server the app runs in its
// own process (the development mailbox, `/dev/mailbox`); with it, to that server. None of these
// messages ever repeats the URL: it may hold a password.

/** A real SMTP server (`SMTP_URL`), as `SmtpMailer` takes it. */
export interface SmtpServerSettings {
  readonly host: string
  readonly port?: number
  readonly security: SmtpSecurity
  readonly auth?: { readonly user: string; readonly pass: string }
  /** Certificates to trust instead of the system's (`PORTCULLIS_SMTP_CA`, a private CA). */
  readonly ca?: readonly string[]
}

export interface MailSettings {
  /** The server mail goes to; absent: the development mailbox, or nowhere (mail waits in the outbox). */
  readonly smtp?: SmtpServerSettings
  /** Whether the app runs its own SMTP server and shows what it received at `/dev/mailbox`. */
  readonly developmentMailbox: boolean
  /** The sender of every message (`PORTCULLIS_MAIL_FROM`). */
  readonly from: MailAddress
}

/** The sender when `PORTCULLIS_MAIL_FROM` is unset: a name that is never delivered to (RFC 2606). */
export const DEFAULT_MAIL_FROM: MailAddress = {
  name: 'Portcullis reference app',
  address: 'no-reply@reference.portcullis.invalid',
}

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\]|::1)$/
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g
const SECURITIES: Readonly<Record<string, SmtpSecurity>> = { 'smtp:': 'starttls', 'smtps:': 'tls' }

function decoded(part: string, name: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new Error(`SMTP_URL: the ${name} is not percent-encoded correctly`)
  }
}

/**
 * `SMTP_URL`: `smtp://user:password@host:587` (STARTTLS required before anything is sent),
 * `smtps://user:password@host:465` (implicit TLS), or `smtp://127.0.0.1:2525?security=plain` (clear
 * text, to a loopback server only). The user and password are percent-encoded.
 */
export function parseSmtpUrl(value: string): SmtpServerSettings {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error('SMTP_URL must be a URL such as smtp://user:password@mail.example:587')
  }
  const scheme = SECURITIES[url.protocol]
  if (scheme === undefined) throw new Error('SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (TLS)')
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash !== '')
    throw new Error('SMTP_URL takes no path: smtp://user:password@host:port')
  const options = [...url.searchParams.keys()]
  if (options.some((option) => option !== 'security'))
    throw new Error('SMTP_URL takes one option only: ?security=plain (to a loopback server)')
  const asked = url.searchParams.get('security')
  if (asked !== null && (asked !== 'plain' || scheme !== 'starttls'))
    throw new Error('SMTP_URL: ?security=plain goes with smtp:// only')
  const security: SmtpSecurity = asked === 'plain' ? 'plain' : scheme
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (host === '') throw new Error('SMTP_URL names no host')
  if (security === 'plain' && !LOOPBACK_HOST.test(host))
    throw new Error('SMTP_URL: ?security=plain is for a loopback server only; use STARTTLS or TLS')
  const user = decoded(url.username, 'user')
  const pass = decoded(url.password, 'password')
  if (user === '' && pass !== '') throw new Error('SMTP_URL has a password without a user')
  return {
    host,
    security,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    ...(user === '' ? {} : { auth: { user, pass } }),
  }
}

/** `PORTCULLIS_MAIL_FROM`: `address` or `Name <address>`. */
export function parseMailFrom(value: string): MailAddress {
  const text = value.trim()
  const match = /^(.*?)\s*<([^<>]+)>$/.exec(text)
  const mailbox =
    match === null
      ? { address: text }
      : { address: (match[2] ?? '').trim(), ...(match[1] ? { name: match[1].replace(/^"|"$/g, '') } : {}) }
  try {
    return requireMailbox(mailbox, 'PORTCULLIS_MAIL_FROM')
  } catch (error) {
    throw new Error(`PORTCULLIS_MAIL_FROM must be an address or Name <address>: ${(error as Error).message}`)
  }
}

function certificates(file: string): readonly string[] {
  let text: string
  try {
    text = readFileSync(resolve(file), 'utf8')
  } catch (error) {
    throw new Error(
      `PORTCULLIS_SMTP_CA: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    )
  }
  const found = text.match(PEM_CERTIFICATE) ?? []
  if (found.length === 0) throw new Error(`PORTCULLIS_SMTP_CA: ${file} holds no PEM certificate`)
  return found
}

/**
 * The mail settings of the environment. The development mailbox is on by default when no `SMTP_URL`
 * is set, the app is not in production (`NODE_ENV=production`) and it listens on and is served at
 * loopback: it shows every code and link the app sends to anyone who opens it.
 * `PORTCULLIS_DEV_MAILBOX=true` turns it on off loopback (a container), never in production.
 */
export function readMailSettings(
  env: NodeJS.ProcessEnv,
  where: { readonly host: string; readonly publicUrl: string | undefined },
  flag: (value: string | undefined, name: string) => boolean | undefined,
): MailSettings {
  const smtpUrl = env.SMTP_URL?.trim()
  const from = env.PORTCULLIS_MAIL_FROM?.trim() ? parseMailFrom(env.PORTCULLIS_MAIL_FROM) : DEFAULT_MAIL_FROM
  const caFile = env.PORTCULLIS_SMTP_CA?.trim() ?? ''
  const asked = flag(env.PORTCULLIS_DEV_MAILBOX, 'PORTCULLIS_DEV_MAILBOX')
  if (smtpUrl) {
    if (asked === true) throw new Error('PORTCULLIS_DEV_MAILBOX=true and SMTP_URL: choose one')
    const smtp = parseSmtpUrl(smtpUrl)
    return {
      smtp: caFile === '' ? smtp : { ...smtp, ca: certificates(caFile) },
      developmentMailbox: false,
      from,
    }
  }
  if (caFile !== '') throw new Error('PORTCULLIS_SMTP_CA applies to the server in SMTP_URL; set SMTP_URL too')
  const production = env.NODE_ENV === 'production'
  if (asked === true && production)
    throw new Error('PORTCULLIS_DEV_MAILBOX: a development setting, refused with NODE_ENV=production')
  const served = where.publicUrl === undefined ? undefined : new URL(where.publicUrl).hostname
  const loopback = LOOPBACK_HOST.test(where.host) && (served === undefined || LOOPBACK_HOST.test(served))
  return { developmentMailbox: asked ?? (!production && loopback), from }
}
