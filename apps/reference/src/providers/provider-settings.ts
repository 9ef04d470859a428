import { inspect } from 'node:util'

/** The real identity providers the app knows; each is enabled by its `PORTCULLIS_<NAME>_CLIENT_ID`. */
export type ProviderKind = 'google' | 'microsoft' | 'github' | 'okta' | 'auth0' | 'keycloak'

/**
 * One enabled provider, read and validated from the environment. The OAuth routes turn it into a
 * registration (`discoverGoogleOidcProvider`, `GitHubOAuthProvider`, ...). `clientSecret` is a secret:
 * `inspect`, `toString` and JSON never show it.
 */
export interface ProviderSettings {
  readonly kind: ProviderKind
  readonly clientId: string
  readonly clientSecret: string
  /** Microsoft: `common`, `organizations`, `consumers` or a tenant id. */
  readonly tenant?: string
  /** Okta and Auth0: the bare host name. */
  readonly domain?: string
  /** Okta: a custom authorization server id. */
  readonly authorizationServerId?: string
  /** Keycloak: the server's base URL and realm. */
  readonly baseUrl?: string
  readonly realm?: string
}

interface Field {
  readonly key: keyof ProviderSettings
  readonly variable: string
  readonly required: boolean
  readonly check?: (value: string) => string | undefined
}

const HOST = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i
const TENANT =
  /^(common|organizations|consumers|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

const bareHost = (value: string) => (HOST.test(value) ? undefined : 'must be a bare host name')
const httpsUrl = (value: string) =>
  URL.canParse(value) && new URL(value).protocol === 'https:' ? undefined : 'must be an https URL'

const EXTRA: Readonly<Record<ProviderKind, readonly Omit<Field, 'variable'>[]>> = {
  google: [],
  github: [],
  microsoft: [
    {
      key: 'tenant',
      required: true,
      check: (value) =>
        TENANT.test(value) ? undefined : 'must be common, organizations, consumers or a GUID',
    },
  ],
  okta: [
    { key: 'domain', required: true, check: bareHost },
    {
      key: 'authorizationServerId',
      required: false,
      check: (value) => (/^[A-Za-z0-9]+$/.test(value) ? undefined : 'must be alphanumeric'),
    },
  ],
  auth0: [{ key: 'domain', required: true, check: bareHost }],
  keycloak: [
    { key: 'baseUrl', required: true, check: httpsUrl },
    {
      key: 'realm',
      required: true,
      check: (value) =>
        /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/.test(value) ? undefined : 'is not a realm name',
    },
  ],
}

export const PROVIDER_KINDS = Object.keys(EXTRA) as ProviderKind[]

const variableName = (kind: ProviderKind, key: string) =>
  `PORTCULLIS_${kind.toUpperCase()}_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`

/** The environment variables of one provider, in the order the docs list them. */
export function providerVariables(kind: ProviderKind): readonly Field[] {
  const common: readonly Omit<Field, 'variable'>[] = [
    { key: 'clientId', required: true },
    { key: 'clientSecret', required: true },
  ]
  return [...common, ...EXTRA[kind]].map((field) => ({ ...field, variable: variableName(kind, field.key) }))
}

function redacted(settings: Omit<ProviderSettings, 'clientSecret'>, secret: string): ProviderSettings {
  const shown = { ...settings, clientSecret: '[redacted]' }
  return Object.freeze(
    Object.defineProperties(
      { ...settings },
      {
        clientSecret: { value: secret, enumerable: false },
        toJSON: { value: () => shown, enumerable: false },
        [inspect.custom]: { value: () => shown, enumerable: false },
      },
    ),
  ) as ProviderSettings
}

/**
 * Reads every provider whose client id is set; refuses a half-configured one (a secret without its client
 * id, a missing domain, a malformed value) with one line naming the variable, never its value.
 */
export function readProviderSettings(env: NodeJS.ProcessEnv): readonly ProviderSettings[] {
  const enabled: ProviderSettings[] = []
  for (const kind of PROVIDER_KINDS) {
    const fields = providerVariables(kind)
    const values = new Map(fields.map((field) => [field, env[field.variable]?.trim() ?? '']))
    const clientId = values.get(fields[0] as Field) ?? ''
    if (clientId === '') {
      const stray = fields.find((field) => values.get(field) !== '')
      if (stray) throw new Error(`${stray.variable} is set but ${(fields[0] as Field).variable} is not`)
      continue
    }
    const settings: Record<string, string> = { kind }
    for (const field of fields) {
      const value = values.get(field) ?? ''
      if (value === '') {
        if (field.required) throw new Error(`${field.variable} is required when ${kind} is enabled`)
        continue
      }
      const problem = field.check?.(value)
      if (problem) throw new Error(`${field.variable} ${problem}`)
      settings[field.key] = value
    }
    const { clientSecret = '', ...rest } = settings
    enabled.push(redacted(rest as unknown as Omit<ProviderSettings, 'clientSecret'>, clientSecret))
  }
  return Object.freeze(enabled)
}
