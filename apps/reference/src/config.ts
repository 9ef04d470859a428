import { dirname, join, resolve } from 'node:path'
import { parseTrustedProxies } from '@portcullis/core/local-accounts'
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

/** Reads the app's settings from the environment, refusing values that cannot work. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ReferenceConfig {
  const port = portNumber(env.PORT ?? '3000', 'PORT')
  const databaseUrl = env.DATABASE_URL?.trim()
  const dataDir = resolve(env.PORTCULLIS_DATA_DIR ?? '.data/postgres')
  const idpPort =
    env.PORTCULLIS_IDP_PORT === undefined
      ? port === 0 || port === 65_535
        ? 0
        : port + 1
      : portNumber(env.PORTCULLIS_IDP_PORT, 'PORTCULLIS_IDP_PORT')
  const publicUrl = publicUrlOf(env.PORTCULLIS_PUBLIC_URL)
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir,
    secretsFile: resolve(env.PORTCULLIS_SECRETS_FILE ?? join(dirname(dataDir), 'secrets.json')),
    trustedProxies: trustedProxiesOf(env.PORTCULLIS_TRUSTED_PROXIES),
    demoIdp: { enabled: flag(env.PORTCULLIS_DEMO_IDP, 'PORTCULLIS_DEMO_IDP', true), port: idpPort },
    providers: readProviderSettings(env),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(publicUrl ? { publicUrl } : {}),
  }
}
