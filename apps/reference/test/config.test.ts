import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { readConfig } from '../src/config.js'

const SECRET = 'a-client-secret-that-must-never-be-printed'

describe('the demo IdP and public URL settings', () => {
  it('puts the demo IdP beside the app (PORT + 1), on any free port for PORT=0, and can turn it off', () => {
    expect(readConfig({}).demoIdp).toEqual({ enabled: true, port: 3001 })
    expect(readConfig({ PORT: '0' }).demoIdp).toEqual({ enabled: true, port: 0 })
    expect(readConfig({ PORTCULLIS_IDP_PORT: '4000' }).demoIdp?.port).toBe(4000)
    expect(readConfig({ PORTCULLIS_DEMO_IDP: 'false' }).demoIdp?.enabled).toBe(false)
    expect(() => readConfig({ PORTCULLIS_DEMO_IDP: 'maybe' })).toThrow(
      'PORTCULLIS_DEMO_IDP must be true or false',
    )
  })

  it('turns on OAuth dynamic client registration only when asked', () => {
    expect(readConfig({}).authorizationServer).toBeUndefined()
    expect(readConfig({ PORTCULLIS_OAUTH_REGISTRATION: 'true' }).authorizationServer).toEqual({
      registration: true,
    })
    expect(readConfig({ PORTCULLIS_OAUTH_REGISTRATION: 'off' }).authorizationServer).toBeUndefined()
    expect(() => readConfig({ PORTCULLIS_OAUTH_REGISTRATION: 'sometimes' })).toThrow(
      'PORTCULLIS_OAUTH_REGISTRATION must be true or false',
    )
  })

  it('keeps the secrets file beside the data folder unless told otherwise', () => {
    expect(readConfig({ PORTCULLIS_DATA_DIR: '/srv/demo/postgres' }).secretsFile).toBe(
      '/srv/demo/secrets.json',
    )
    expect(readConfig({ PORTCULLIS_SECRETS_FILE: '/run/keys/app.json' }).secretsFile).toBe(
      '/run/keys/app.json',
    )
  })

  it('accepts an origin as the public URL, nothing more', () => {
    expect(readConfig({ PORTCULLIS_PUBLIC_URL: 'https://demo.example/' }).publicUrl).toBe(
      'https://demo.example',
    )
    expect(() => readConfig({ PORTCULLIS_PUBLIC_URL: 'https://demo.example/app' })).toThrow(/origin/)
    expect(() => readConfig({ PORTCULLIS_PUBLIC_URL: 'ftp://demo.example' })).toThrow(/origin/)
  })

  it('checks trusted proxies (addresses and CIDR ranges)', () => {
    expect(readConfig({ PORTCULLIS_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
    ])
    expect(() => readConfig({ PORTCULLIS_TRUSTED_PROXIES: '10.0.0.1/8' })).toThrow(
      /PORTCULLIS_TRUSTED_PROXIES/,
    )
  })
})

describe('the database behind a pooler', () => {
  const pooled = 'postgres://app:pw-secret@pgbouncer:6432/app'
  const direct = 'postgres://app:pw-secret@db:5432/app'

  it('gives the listener its own URL, falling back to DATABASE_URL, and names the connections', () => {
    expect(readConfig({ DATABASE_URL: direct }).databaseListenerUrl).toBeUndefined()
    const config = readConfig({
      DATABASE_URL: pooled,
      DATABASE_LISTENER_URL: direct,
      PORTCULLIS_DATABASE_POOLER: 'transaction',
      PORTCULLIS_DATABASE_APPLICATION_NAME: 'portcullis-web-2',
    })
    expect(config).toMatchObject({
      databaseUrl: pooled,
      databaseListenerUrl: direct,
      databasePooler: 'transaction',
      databaseApplicationName: 'portcullis-web-2',
    })
  })

  it('refuses a pooler in transaction mode without a listener URL, and settings that cannot work', () => {
    expect(() => readConfig({ DATABASE_URL: pooled, PORTCULLIS_DATABASE_POOLER: 'transaction' })).toThrow(
      /needs DATABASE_LISTENER_URL/,
    )
    expect(() => readConfig({ DATABASE_URL: pooled, PORTCULLIS_DATABASE_POOLER: 'session' })).toThrow(
      /PORTCULLIS_DATABASE_POOLER/,
    )
    expect(() => readConfig({ DATABASE_LISTENER_URL: direct })).toThrow(/set DATABASE_URL too/)
    expect(() => readConfig({ DATABASE_URL: pooled, DATABASE_LISTENER_URL: 'http://pw-secret@db' })).toThrow(
      'DATABASE_LISTENER_URL must be a postgres:// URL',
    )
    expect(() =>
      readConfig({ DATABASE_URL: pooled, PORTCULLIS_DATABASE_APPLICATION_NAME: 'web 1; drop' }),
    ).toThrow(/PORTCULLIS_DATABASE_APPLICATION_NAME/)
  })
})

describe('real identity providers from the environment', () => {
  it('enables a provider by its client id and keeps its secret out of JSON and inspect', () => {
    const [google] =
      readConfig({
        PORTCULLIS_GOOGLE_CLIENT_ID: 'google-client',
        PORTCULLIS_GOOGLE_CLIENT_SECRET: SECRET,
      }).providers ?? []
    expect(google).toMatchObject({ kind: 'google', clientId: 'google-client' })
    expect(google?.clientSecret).toBe(SECRET)
    expect(JSON.stringify(google)).not.toContain(SECRET)
    expect(inspect(google)).not.toContain(SECRET)
  })

  it('reads the provider-specific settings', () => {
    const providers = readConfig({
      PORTCULLIS_MICROSOFT_CLIENT_ID: 'ms',
      PORTCULLIS_MICROSOFT_CLIENT_SECRET: SECRET,
      PORTCULLIS_MICROSOFT_TENANT: 'organizations',
      PORTCULLIS_OKTA_CLIENT_ID: 'okta',
      PORTCULLIS_OKTA_CLIENT_SECRET: SECRET,
      PORTCULLIS_OKTA_DOMAIN: 'example.okta.com',
      PORTCULLIS_OKTA_AUTHORIZATION_SERVER_ID: 'default',
      PORTCULLIS_KEYCLOAK_CLIENT_ID: 'kc',
      PORTCULLIS_KEYCLOAK_CLIENT_SECRET: SECRET,
      PORTCULLIS_KEYCLOAK_BASE_URL: 'https://sso.example.com',
      PORTCULLIS_KEYCLOAK_REALM: 'demo',
    }).providers
    expect(providers?.map((provider) => provider.kind)).toEqual(['microsoft', 'okta', 'keycloak'])
    expect(providers?.[0]).toMatchObject({ tenant: 'organizations' })
    expect(providers?.[1]).toMatchObject({ domain: 'example.okta.com', authorizationServerId: 'default' })
    expect(providers?.[2]).toMatchObject({ baseUrl: 'https://sso.example.com', realm: 'demo' })
  })

  it('refuses half-configured providers in one line naming the variable, never the value', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [
        { PORTCULLIS_GITHUB_CLIENT_SECRET: SECRET },
        'PORTCULLIS_GITHUB_CLIENT_SECRET is set but PORTCULLIS_GITHUB_CLIENT_ID is not',
      ],
      [
        { PORTCULLIS_GITHUB_CLIENT_ID: 'gh' },
        'PORTCULLIS_GITHUB_CLIENT_SECRET is required when github is enabled',
      ],
      [
        {
          PORTCULLIS_AUTH0_CLIENT_ID: 'a',
          PORTCULLIS_AUTH0_CLIENT_SECRET: SECRET,
          PORTCULLIS_AUTH0_DOMAIN: 'https://x.auth0.com',
        },
        'PORTCULLIS_AUTH0_DOMAIN must be a bare host name',
      ],
      [
        {
          PORTCULLIS_KEYCLOAK_CLIENT_ID: 'k',
          PORTCULLIS_KEYCLOAK_CLIENT_SECRET: SECRET,
          PORTCULLIS_KEYCLOAK_BASE_URL: 'http://sso.example.com',
          PORTCULLIS_KEYCLOAK_REALM: 'demo',
        },
        'PORTCULLIS_KEYCLOAK_BASE_URL must be an https URL',
      ],
      [
        {
          PORTCULLIS_MICROSOFT_CLIENT_ID: 'm',
          PORTCULLIS_MICROSOFT_CLIENT_SECRET: SECRET,
          PORTCULLIS_MICROSOFT_TENANT: 'contoso',
        },
        'PORTCULLIS_MICROSOFT_TENANT must be common, organizations, consumers or a GUID',
      ],
    ]
    for (const [env, message] of cases) {
      expect(() => readConfig(env)).toThrow(message)
      try {
        readConfig(env)
      } catch (error) {
        expect(String(error)).not.toContain(SECRET)
      }
    }
  })
})
