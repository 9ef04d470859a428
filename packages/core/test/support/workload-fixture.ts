import type { AuthenticationMechanism } from '../../src/authentication/mechanism.js'
import type { AuthenticationOutcome } from '../../src/authentication/outcome.js'
import { CachedJWKSProvider } from '../../src/jwks/cached-jwks-provider.js'
import { type WorkloadJwtOptions, workloadJwt } from '../../src/workload-jwt/workload-jwt-mechanism.js'
import { headerSource } from './credential-source.js'
import { type JwksServer, startJwksServer } from './jwks-server.js'
import { generateTestKey, signCompact, type TestAlgorithm, type TestKey, workloadClaims } from './jwt.js'

export const ISSUER = 'https://issuer.example'
export const AUDIENCE = 'https://api.example'

/** A real JWKS server with one key per algorithm, a provider on an injected clock and a mechanism factory. */
export interface WorkloadFixture {
  readonly server: JwksServer
  readonly jwks: CachedJWKSProvider
  readonly keys: Readonly<Record<TestAlgorithm, TestKey>>
  /** Seconds since the epoch, as the mechanism sees it. */
  nowSeconds: number
  mechanism(options?: Partial<WorkloadJwtOptions>): AuthenticationMechanism
  token(options?: {
    header?: Record<string, unknown>
    payload?: Record<string, unknown>
    key?: TestKey
    alg?: TestAlgorithm
  }): string
  close(): Promise<void>
}

export async function startWorkloadFixture(): Promise<WorkloadFixture> {
  const server = await startJwksServer()
  const keys = {
    ES256: generateTestKey('ES256', 'es-1'),
    RS256: generateTestKey('RS256', 'rs-1'),
    PS256: generateTestKey('PS256', 'ps-1'),
    EdDSA: generateTestKey('EdDSA', 'ed-1'),
  }
  server.setDocument({ keys: Object.values(keys).map((key) => key.jwk) })
  const fixture: WorkloadFixture = {
    server,
    keys,
    nowSeconds: Math.floor(Date.UTC(2030, 0, 1) / 1000),
    jwks: new CachedJWKSProvider({ allowInsecureLoopback: true, clock: () => fixture.nowSeconds * 1000 }),
    mechanism(options = {}) {
      return workloadJwt({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUri: server.url,
        jwks: fixture.jwks,
        clock: () => fixture.nowSeconds * 1000,
        ...options,
      })
    },
    token({ header = {}, payload = {}, key, alg = 'ES256' } = {}) {
      const signer = key ?? keys[alg]
      return signCompact({
        header: { alg: signer.alg, typ: 'at+jwt', kid: signer.kid, ...header },
        payload: { ...workloadClaims(ISSUER, AUDIENCE, fixture.nowSeconds), ...payload },
        key: signer,
      })
    },
    close: async () => {
      await fixture.jwks.close()
      await server.close()
    },
  }
  return fixture
}

export function bearer(
  mechanism: AuthenticationMechanism,
  token: string | undefined,
  scheme = 'Bearer',
): Promise<AuthenticationOutcome> {
  return Promise.resolve().then(() =>
    mechanism.authenticate(headerSource(token === undefined ? {} : { authorization: `${scheme} ${token}` })),
  )
}
