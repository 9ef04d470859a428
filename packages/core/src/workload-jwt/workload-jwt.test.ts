import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { headerSource } from '../../test/support/credential-source.js'
import { signCompact, type TestAlgorithm } from '../../test/support/jwt.js'
import {
  AUDIENCE,
  bearer,
  ISSUER,
  startWorkloadFixture,
  type WorkloadFixture,
} from '../../test/support/workload-fixture.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { JWKSProvider } from '../jwks/jwks-provider.js'
import { githubActionsOidc, kubernetesServiceAccount } from './presets.js'
import { workloadJwt } from './workload-jwt-mechanism.js'

let fixture: WorkloadFixture
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)

beforeAll(async () => {
  fixture = await startWorkloadFixture()
})
afterAll(() => fixture.close())
beforeEach(() => {
  fixture.nowSeconds = start
})

/** Wraps the shared provider to count key selections. */
function counting(): { provider: JWKSProvider; selections: () => number } {
  let selections = 0
  return {
    provider: {
      register: (source) => fixture.jwks.register(source),
      selectKey: (request) => {
        selections++
        return fixture.jwks.selectKey(request)
      },
      warmup: () => fixture.jwks.warmup(),
      close: async () => {},
    },
    selections: () => selections,
  }
}

describe('workload JWT mechanism', () => {
  it.each(['ES256', 'RS256', 'PS256', 'EdDSA'] satisfies TestAlgorithm[])(
    'authenticates a %s access token as a service principal with scope restrictions',
    async (alg) => {
      const outcome = await bearer(fixture.mechanism(), fixture.token({ alg }))
      expect(outcome).toMatchObject({
        kind: 'authenticated',
        principal: { id: 'svc-billing', kind: 'service', displayName: 'billing-client' },
        evidence: {
          mechanism: 'workload-jwt',
          credentialType: 'workload-jwt',
          attributes: {
            issuer: ISSUER,
            subject: 'svc-billing',
            clientId: 'billing-client',
            alg,
            profile: 'at+jwt',
          },
          restrictions: { scopes: ['invoices:read', 'invoices:write'] },
          expiresAt: new Date((start + 300) * 1000),
        },
      })
    },
  )

  it('reads scp arrays and custom subject / scope claims', async () => {
    const scp = await bearer(
      fixture.mechanism(),
      fixture.token({ payload: { scope: undefined, scp: ['a', 'b'] } }),
    )
    expect(scp.kind === 'authenticated' && scp.evidence.restrictions).toEqual({ scopes: ['a', 'b'] })
    const custom = fixture.mechanism({ subjectClaim: 'azp', scopeClaim: 'permissions' })
    const outcome = await bearer(custom, fixture.token({ payload: { azp: 'svc-x', permissions: ['p:1'] } }))
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'svc-x' },
      evidence: { restrictions: { scopes: ['p:1'] } },
    })
  })

  it('can share the bearer header: other issuers and opaque tokens are none, bad tokens of its issuer invalid', async () => {
    const strict = fixture.mechanism()
    const shared = fixture.mechanism({ shareBearerHeader: true })
    const foreign = fixture.token({ payload: { iss: 'https://other.example' } })
    expect((await bearer(strict, foreign)).kind).toBe('invalid')
    expect((await bearer(shared, foreign)).kind).toBe('none')
    expect((await bearer(shared, 'opaque-local-access-token')).kind).toBe('none')
    expect((await bearer(shared, fixture.token({ payload: { aud: 'https://other.example' } }))).kind).toBe(
      'invalid',
    )
    expect((await bearer(shared, fixture.token({ header: { alg: 'none' } }))).kind).toBe('invalid')
    expect((await bearer(shared, `${fixture.token()}, Bearer x`)).kind).toBe('invalid')
    expect((await bearer(shared, fixture.token())).kind).toBe('authenticated')
  })

  it('describes itself as an HTTP bearer scheme', () => {
    expect(fixture.mechanism({ name: 'partners', default: false })).toMatchObject({
      name: 'partners',
      default: false,
      securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    })
  })
})

describe('workload token profiles', () => {
  it('GitHub Actions preset: plain JWT with an x5t hint, no scope, repository and jti required', async () => {
    const github = githubActionsOidc({
      audience: 'https://github.com/acme',
      issuer: ISSUER,
      jwksUri: fixture.server.url,
      jwks: fixture.jwks,
      clock: () => fixture.nowSeconds * 1000,
    })
    const claims = {
      aud: 'https://github.com/acme',
      sub: 'repo:acme/api:ref:refs/heads/main',
      repository: 'acme/api',
      scope: undefined,
      client_id: undefined,
    }
    const header = { typ: 'JWT', x5t: 'thumbprint-hint' }
    const outcome = await bearer(github, fixture.token({ alg: 'RS256', header, payload: claims }))
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'repo:acme/api:ref:refs/heads/main', kind: 'service' },
      evidence: { mechanism: 'github-actions', attributes: { profile: 'github-actions' } },
    })
    expect(outcome.kind === 'authenticated' && outcome.evidence.restrictions).toBeUndefined()
    const reject = (extraHeader: Record<string, unknown>, payload: Record<string, unknown> = {}) =>
      bearer(
        github,
        fixture.token({
          alg: 'RS256',
          header: { ...header, ...extraHeader },
          payload: { ...claims, ...payload },
        }),
      )
    expect((await reject({ jku: 'https://attacker.example' })).kind).toBe('invalid')
    expect((await reject({ typ: 'at+jwt' })).kind).toBe('invalid')
    expect((await reject({}, { repository: undefined })).kind).toBe('invalid')
    expect((await reject({ alg: 'ES256', kid: 'es-1' })).kind).toBe('invalid') // RS256 only
  })

  it('Kubernetes service-account preset: no typ header, optional scope', async () => {
    const kube = kubernetesServiceAccount({
      issuer: ISSUER,
      jwksUri: fixture.server.url,
      audience: 'https://api.example',
      jwks: fixture.jwks,
      clock: () => fixture.nowSeconds * 1000,
    })
    const payload = { sub: 'system:serviceaccount:billing:worker', scope: undefined, client_id: undefined }
    const token = fixture.token({ alg: 'RS256', header: { typ: undefined }, payload })
    expect(await bearer(kube, token)).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'system:serviceaccount:billing:worker', kind: 'service' },
    })
    expect(
      (await bearer(kube, fixture.token({ alg: 'RS256', header: { typ: 'at+jwt' }, payload }))).kind,
    ).toBe('invalid')
    const scoped = await bearer(
      kube,
      fixture.token({ alg: 'ES256', header: { typ: undefined }, payload: { ...payload, scope: 'read' } }),
    )
    expect(scoped.kind === 'authenticated' && scoped.evidence.restrictions).toEqual({ scopes: ['read'] })
  })
})

describe('verified-token cache', () => {
  it('serves repeats from the cache, keyed by token, and never caches failures', async () => {
    const { provider, selections } = counting()
    const cached = fixture.mechanism({ jwks: provider, cache: { maxEntries: 10 } })
    const token = fixture.token()
    for (let i = 0; i < 5; i++) expect((await bearer(cached, token)).kind).toBe('authenticated')
    expect(selections()).toBe(1)
    const [header, payload] = token.split('.')
    const forged = `${header}.${payload}.${fixture.token().split('.')[2]}`
    for (let i = 0; i < 3; i++) expect((await bearer(cached, forged)).kind).toBe('invalid')
    expect(selections()).toBe(4)
  })

  it('never serves a cached success past the token exp', async () => {
    const { provider, selections } = counting()
    const cached = fixture.mechanism({ jwks: provider, cache: { maxEntries: 10, maxTtlSeconds: 3600 } })
    const token = fixture.token({ payload: { exp: start + 60 } })
    expect((await bearer(cached, token)).kind).toBe('authenticated')
    fixture.nowSeconds = start + 59
    expect((await bearer(cached, token)).kind).toBe('authenticated')
    expect(selections()).toBe(1)
    fixture.nowSeconds = start + 60 // at exp: the cache entry is gone, full verification applies the skew
    expect((await bearer(cached, token)).kind).toBe('authenticated')
    expect(selections()).toBe(2)
    fixture.nowSeconds = start + 91
    expect((await bearer(cached, token)).kind).toBe('invalid')
  })

  it('is bounded: the least recently used entry is evicted', async () => {
    const { provider, selections } = counting()
    const cached = fixture.mechanism({ jwks: provider, cache: { maxEntries: 2 } })
    const [a, b, c] = [fixture.token(), fixture.token(), fixture.token()]
    for (const token of [a, b, a, c]) await bearer(cached, token as string)
    expect(selections()).toBe(3) // a, b, c verified; a's repeat was a hit
    await bearer(cached, a as string) // a was used after b, so b was evicted, not a
    expect(selections()).toBe(3)
    await bearer(cached, b as string)
    expect(selections()).toBe(4)
  })

  it('does not remember an outage', async () => {
    const down = await startWorkloadFixture()
    try {
      const cached = down.mechanism({ cache: { maxEntries: 10 } })
      const token = down.token()
      down.server.setBehaviour({ kind: 'status', status: 500 })
      expect((await bearer(cached, token)).kind).toBe('unavailable')
      down.server.setDocument({ keys: Object.values(down.keys).map((key) => key.jwk) })
      down.nowSeconds += 6
      expect((await bearer(cached, token)).kind).toBe('authenticated')
    } finally {
      await down.close()
    }
  })
})

describe('workload JWT configuration', () => {
  const base = () => ({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: 'https://issuer.example/jwks',
    jwks: fixture.jwks,
  })
  it.each([
    ['HS256', { algorithms: ['HS256'] }, 'workload_jwt.unsupported_algorithm'],
    ['none', { algorithms: ['none'] }, 'workload_jwt.unsupported_algorithm'],
    ['an empty allow-list', { algorithms: [] }, 'workload_jwt.unsupported_algorithm'],
    ['a blank issuer', { issuer: '  ' }, 'workload_jwt.invalid_config'],
    ['no audience', { audience: [] }, 'workload_jwt.invalid_config'],
    ['a blank audience', { audience: ' ' }, 'workload_jwt.invalid_config'],
    ['an http JWKS URL', { jwksUri: 'http://issuer.example/jwks' }, 'jwks.insecure_uri'],
    ['a bad scope claim name', { scopeClaim: 'scope claim' }, 'workload_jwt.invalid_config'],
    ['a negative skew', { clockSkewSeconds: -1 }, 'workload_jwt.invalid_config'],
    ['an empty cache', { cache: { maxEntries: 0 } }, 'workload_jwt.invalid_config'],
  ])('refuses %s', (_name, override, code) => {
    let caught: unknown
    try {
      workloadJwt({ ...base(), ...(override as object) })
    } catch (error) {
      caught = error
    }
    expect(isPortcullisError(caught) && caught.code).toBe(code)
  })

  it('never throws for hostile input: every odd header value becomes an outcome', async () => {
    const mechanism = fixture.mechanism()
    const values = [
      'Bearer \u00e9\u00e9',
      `Bearer ${'a.'.repeat(5000)}a`,
      'Bearer a.b.c',
      'Bearer ....',
      'Bearer =',
    ]
    for (const authorization of values) {
      const outcome = await mechanism.authenticate(headerSource({ authorization }))
      expect(outcome.kind).toBe('invalid')
    }
    const hmac = signCompact({
      header: { alg: 'HS256', kid: 'x', typ: 'at+jwt' },
      payload: {},
      key: { hmacSecret: 'x' },
    })
    expect((await bearer(mechanism, hmac)).kind).toBe('invalid')
  })
})
