import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseTrustedProxies } from '@portcullis/core/local-accounts'
import { systemDnsTxtResolver } from '@portcullis/core/organization-domains'
import { type MailSettings, readMailSettings } from './mail/mail-settings.js'
import type { AuthorizationServerSettings } from './oauth-server/names.js'
import { type ProviderSettings, readProviderSettings } from './providers/provider-settings.js'

export interface DemoIdpConfig {
  /** Whether the built-in demo OpenID Provider starts with the app (`PORTCULLIS_DEMO_IDP`, default on). */
  readonly enabled: boolean
  /** Its loopback port (`PORTCULLIS_IDP_PORT`); default `PORT + 1`, or any free port when `PORT` is 0. */
  readonly port: number
}

export interface ReferenceConfig {
  readonly host: string
  readonly port: number
  /** A Postgres server to use; when absent, an embedded PostgreSQL server keeps data under `dataDir`. */
  readonly databaseUrl?: string
  /**
   * Where the revocation listener connects (`DATABASE_LISTENER_URL`): the server itself when
   * `databaseUrl` goes through a pooler in transaction mode, which cannot hold a `LISTEN`. Default
   * `databaseUrl`.
   */
  readonly databaseListenerUrl?: string
  /** `'transaction'` when `databaseUrl` is a pooler in transaction mode (`PORTCULLIS_DATABASE_POOLER`). */
  readonly databasePooler?: 'none' | 'transaction'
  /**
   * `application_name` of the app's connections (`PORTCULLIS_DATABASE_APPLICATION_NAME`, default
   * `portcullis-reference`); its listener's is this with `-listener` added. Give each instance its own to
   * tell them apart in `pg_stat_activity`.
   */
  readonly databaseApplicationName?: string
  readonly dataDir: string
  /**
   * Where generated key material is kept (`PORTCULLIS_SECRETS_FILE`); default `secrets.json` beside the
   * data folder. Ignored when `PORTCULLIS_SECRETS` carries the secrets (a secret store).
   */
  readonly secretsFile?: string
  /** The origin browsers use (`PORTCULLIS_PUBLIC_URL`), when it is not the address the app listens on. */
  readonly publicUrl?: string
  /** Proxies whose `X-Forwarded-For` hops are believed (`PORTCULLIS_TRUSTED_PROXIES`, comma separated). */
  readonly trustedProxies?: readonly string[]
  readonly demoIdp?: DemoIdpConfig
  /** Real identity providers enabled by environment variables (see `providers/provider-settings.ts`). */
  readonly providers?: readonly ProviderSettings[]
  /**
   * The app's own OAuth authorization server for MCP clients: RFC 7591 registration for clients without a
   * metadata document (`PORTCULLIS_OAUTH_REGISTRATION`, default off), and how metadata documents are
   * fetched (development: `PORTCULLIS_DEV_CIMD_LOOPBACK`, `PORTCULLIS_DEV_CIMD_CA`; tests: loopback
   * documents under a test CA).
   */
  readonly authorizationServer?: AuthorizationServerSettings
  /**
   * Where mail goes: the server in `SMTP_URL` (`PORTCULLIS_SMTP_CA`, `PORTCULLIS_MAIL_FROM`), or in
   * development an SMTP server in the app's process shown at `/dev/mailbox` (`PORTCULLIS_DEV_MAILBOX`).
   * Default: the development mailbox on loopback outside production, else no mail server.
   */
  readonly mail?: MailSettings
  /**
   * The DNS servers the organization domain checks ask (`DNS_SERVERS=192.0.2.53,[2001:db8::53]:5353`);
   * the system's resolvers by default.
   */
  readonly dnsServers?: readonly string[]
  /** Pool settings for a Postgres server (defaults: 10 connections, 5 s to get one). */
  readonly databasePool?: { readonly maxConnections?: number; readonly connectionTimeoutMs?: number }
}

function portNumber(value: string, name: string): number {
  const port = Number(value)
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${name} must be an integer between 0 and 65535`)
  }
  return port
}

function flag(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback
  if (/^(1|true|on|yes)$/i.test(value)) return true
  if (/^(0|false|off|no)$/i.test(value)) return false
  throw new Error(`${name} must be true or false`)
}

function publicUrlOf(value: string | undefined): string | undefined {
  const text = value?.trim()
  if (!text) return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error('PORTCULLIS_PUBLIC_URL must be an absolute http(s) URL')
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/' || url.search) {
    throw new Error('PORTCULLIS_PUBLIC_URL must be an origin such as https://demo.example (no path)')
  }
  return url.origin
}

function trustedProxiesOf(value: string | undefined): readonly string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  try {
    parseTrustedProxies(entries)
  } catch (error) {
    throw new Error(`PORTCULLIS_TRUSTED_PROXIES: ${error instanceof Error ? error.message : 'invalid'}`)
  }
  return entries
}

/** `DNS_SERVERS`: comma-separated `ip[:port]` (IPv6 with a port in brackets), checked as the resolver will. */
function dnsServersOf(value: string | undefined): readonly string[] | undefined {
  const servers = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  if (servers.length === 0) return undefined
  try {
    systemDnsTxtResolver({ servers })
  } catch (error) {
    throw new Error(`DNS_SERVERS: ${error instanceof Error ? error.message : 'invalid'}`)
  }
  return servers
}

function poolerOf(value: string | undefined): 'none' | 'transaction' {
  const text = value?.trim() ?? ''
  if (text === '' || text === 'none') return 'none'
  if (text === 'transaction') return 'transaction'
  throw new Error("PORTCULLIS_DATABASE_POOLER must be 'transaction' (a pooler in transaction mode) or 'none'")
}

function postgresUrlOf(value: string | undefined, name: string): string | undefined {
  const text = value?.trim()
  if (!text) return undefined
  let protocol: string | undefined
  try {
    protocol = new URL(text).protocol
  } catch {
    protocol = undefined
  }
  // The value holds a password: never repeated in the message.
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new Error(`${name} must be a postgres:// URL`)
  return text
}

const APPLICATION_NAME = /^[A-Za-z0-9_.-]{1,54}$/

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\]|::1)$/
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/**
 * The development settings of Client ID Metadata Documents: `PORTCULLIS_DEV_CIMD_LOOPBACK=true` lets the
 * authorization server fetch documents served on this machine's loopback (https, as every document is),
 * `PORTCULLIS_DEV_CIMD_CA` names a PEM file of certificates it trusts for them (a self-signed one). Both
 * let a client make the server fetch from this machine, so they are refused under `NODE_ENV=production`
 * and when the app listens on, or is served at, anything but loopback.
 */
function metadataDocumentsOf(
  env: NodeJS.ProcessEnv,
  host: string,
  publicUrl: string | undefined,
): AuthorizationServerSettings['clientIdMetadataDocuments'] {
  const loopback = flag(env.PORTCULLIS_DEV_CIMD_LOOPBACK, 'PORTCULLIS_DEV_CIMD_LOOPBACK', false)
  const caFile = env.PORTCULLIS_DEV_CIMD_CA?.trim() ?? ''
  if (!loopback && caFile === '') return undefined
  const names = [
    ...(loopback ? ['PORTCULLIS_DEV_CIMD_LOOPBACK'] : []),
    ...(caFile === '' ? [] : ['PORTCULLIS_DEV_CIMD_CA']),
  ].join(' and ')
  if (env.NODE_ENV === 'production') {
    throw new Error(`${names}: a development setting, refused with NODE_ENV=production`)
  }
  const served = publicUrl === undefined ? undefined : new URL(publicUrl).hostname
  if (!LOOPBACK_HOST.test(host) || (served !== undefined && !LOOPBACK_HOST.test(served))) {
    throw new Error(
      `${names}: a development setting, refused unless the app listens on loopback (HOST) and is served there (PORTCULLIS_PUBLIC_URL): it lets clients make the server fetch from this machine`,
    )
  }
  let ca: readonly string[] = []
  if (caFile !== '') {
    let text: string
    try {
      text = readFileSync(resolve(caFile), 'utf8')
    } catch (error) {
      throw new Error(
        `PORTCULLIS_DEV_CIMD_CA: cannot read ${caFile} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      )
    }
    ca = text.match(PEM_CERTIFICATE) ?? []
    if (ca.length === 0) throw new Error(`PORTCULLIS_DEV_CIMD_CA: ${caFile} holds no PEM certificate`)
  }
  return { ...(loopback ? { allowInsecureLoopback: true } : {}), ...(ca.length === 0 ? {} : { ca }) }
}

/** Reads the app's settings from the environment, refusing values that cannot work. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ReferenceConfig {
  const port = portNumber(env.PORT ?? '3000', 'PORT')
  const databaseUrl = env.DATABASE_URL?.trim()
  const databaseListenerUrl = postgresUrlOf(env.DATABASE_LISTENER_URL, 'DATABASE_LISTENER_URL')
  const databasePooler = poolerOf(env.PORTCULLIS_DATABASE_POOLER)
  if (!databaseUrl && (databaseListenerUrl !== undefined || databasePooler !== 'none')) {
    throw new Error(
      'DATABASE_LISTENER_URL and PORTCULLIS_DATABASE_POOLER apply to the server at DATABASE_URL; set DATABASE_URL too',
    )
  }
  if (databasePooler === 'transaction' && databaseListenerUrl === undefined) {
    throw new Error(
      'PORTCULLIS_DATABASE_POOLER=transaction needs DATABASE_LISTENER_URL: the revocation listener cannot LISTEN through a pooler in transaction mode, so give it the server itself',
    )
  }
  const databaseApplicationName = env.PORTCULLIS_DATABASE_APPLICATION_NAME?.trim()
  if (databaseApplicationName && !APPLICATION_NAME.test(databaseApplicationName)) {
    throw new Error(
      'PORTCULLIS_DATABASE_APPLICATION_NAME must be 1 to 54 letters, digits, dots, dashes or underscores',
    )
  }
  const dataDir = resolve(env.PORTCULLIS_DATA_DIR ?? '.data/postgres')
  const idpPort =
    env.PORTCULLIS_IDP_PORT === undefined
      ? port === 0 || port === 65_535
        ? 0
        : port + 1
      : portNumber(env.PORTCULLIS_IDP_PORT, 'PORTCULLIS_IDP_PORT')
  const publicUrl = publicUrlOf(env.PORTCULLIS_PUBLIC_URL)
  const dnsServers = dnsServersOf(env.DNS_SERVERS)
  const registration = flag(env.PORTCULLIS_OAUTH_REGISTRATION, 'PORTCULLIS_OAUTH_REGISTRATION', false)
  const host = env.HOST ?? '127.0.0.1'
  const clientIdMetadataDocuments = metadataDocumentsOf(env, host, publicUrl)
  const mail = readMailSettings(env, { host, publicUrl }, (value, name) =>
    value === undefined || value === '' ? undefined : flag(value, name, false),
  )
  const authorizationServer: AuthorizationServerSettings = {
    ...(registration ? { registration } : {}),
    ...(clientIdMetadataDocuments === undefined ? {} : { clientIdMetadataDocuments }),
  }
  return {
    host,
    port,
    dataDir,
    secretsFile: resolve(env.PORTCULLIS_SECRETS_FILE ?? join(dirname(dataDir), 'secrets.json')),
    trustedProxies: trustedProxiesOf(env.PORTCULLIS_TRUSTED_PROXIES),
    demoIdp: { enabled: flag(env.PORTCULLIS_DEMO_IDP, 'PORTCULLIS_DEMO_IDP', true), port: idpPort },
    providers: readProviderSettings(env),
    mail,
    ...(Object.keys(authorizationServer).length === 0 ? {} : { authorizationServer }),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(databaseListenerUrl ? { databaseListenerUrl } : {}),
    ...(databasePooler === 'none' ? {} : { databasePooler }),
    ...(databaseApplicationName ? { databaseApplicationName } : {}),
    ...(publicUrl ? { publicUrl } : {}),
    ...(dnsServers === undefined ? {} : { dnsServers }),
  }
}
