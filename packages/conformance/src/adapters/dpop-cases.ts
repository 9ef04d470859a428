import { createHash, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DPoPNonces } from '@portcullis/core/dpop'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture, AdapterScenario } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/** The public origin the scenario's clients call (behind a proxy); the app itself listens on loopback. */
export const DPOP_PUBLIC_ORIGIN = 'https://api.conformance.example'
const ISSUER = 'https://issuer.conformance.example'
const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const es256 = (input: string, key: KeyObject) =>
  `${input}.${b64u(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`

/** A client key pair with its RFC 7638 thumbprint. */
function clientKey() {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const { crv, kty, x, y } = pair.publicKey.export({ format: 'jwk' })
  const jwk = { crv, kty, x, y }
  return {
    key: pair.privateKey,
    jwk,
    jkt: createHash('sha256').update(JSON.stringify(jwk)).digest('base64url'),
  }
}

/**
 * The DPoP world: a workload JWT mechanism with `dpop` (public origin `DPOP_PUBLIC_ORIGIN`, optional
 * server nonces) over a key set served on loopback, a bound token, proofs made per request, and
 * `GET /jobs` requiring the mechanism.
 */
async function dpopWorld(withNonces: boolean) {
  const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = { ...signer.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }
  const jwksServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  const nonces = withNonces ? new DPoPNonces({ secret: randomBytes(32) }) : undefined
  const mechanism = workloadJwt({
    name: 'dpop-workload',
    issuer: ISSUER,
    audience: DPOP_PUBLIC_ORIGIN,
    jwksUri: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`,
    jwks,
    dpop: {
      origins: [DPOP_PUBLIC_ORIGIN],
      replay: new MemoryRateLimitStore(),
      required: true,
      ...(nonces === undefined ? {} : { nonces }),
    },
  })
  const holder = clientKey()
  const now = Math.floor(Date.now() / 1000)
  const token = es256(
    `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }))}.${b64u(
      JSON.stringify({
        iss: ISSUER,
        sub: 'svc-jobs',
        aud: DPOP_PUBLIC_ORIGIN,
        iat: now,
        exp: now + 300,
        client_id: 'jobs',
        jti: randomUUID(),
        scope: 'jobs:read',
        cnf: { jkt: holder.jkt },
      }),
    )}`,
    signer.privateKey,
  )
  const proof = (url: string, options: { method?: string; nonce?: string; signer?: typeof holder } = {}) => {
    const by = options.signer ?? holder
    return es256(
      `${b64u(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: by.jwk }))}.${b64u(
        JSON.stringify({
          jti: randomUUID(),
          htm: options.method ?? 'GET',
          htu: url,
          iat: Math.floor(Date.now() / 1000),
          ath: createHash('sha256').update(token).digest('base64url'),
          ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
        }),
      )}`,
      by.key,
    )
  }
  const scenario: AdapterScenario = {
    security: { mechanisms: [mechanism] },
    routes: [
      {
        method: 'GET',
        path: '/jobs',
        options: { auth: required('dpop-workload') },
        respond: ({ security }) => ({ id: security.principal?.id ?? null }),
      },
    ],
  }
  const close = async () => {
    await jwks.close()
    jwksServer.closeAllConnections()
    await new Promise((resolve) => jwksServer.close(resolve))
  }
  return { scenario, token, proof, nonces, close, thief: clientKey }
}

const PUBLIC_JOBS = `${DPOP_PUBLIC_ORIGIN}/jobs`

export const dpopCases: readonly Case[] = [
  conformanceCase(
    'adapter.dpop-bound-token',
    'a DPoP-bound token is served with a proof for the public URL (whatever Host and X-Forwarded-* say), and refused with a DPoP challenge as Bearer, with a proof by another key, for the internal URL, or replayed',
    async (fixture, check) => {
      const world = await dpopWorld(false)
      try {
        const app = await fixture.start(world.scenario)
        const dpop = (proof: string) => ({ authorization: `DPoP ${world.token}`, dpop: proof })
        const once = world.proof(PUBLIC_JOBS)
        const served = await call(app.url, '/jobs?page=2', {
          headers: { ...dpop(once), 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' },
        })
        check(served.status === 200, `a valid proof answered ${served.status}`)
        check((served.json() as { id?: unknown }).id === 'svc-jobs', 'the bound workload is the principal')

        const refusals: [string, Awaited<ReturnType<typeof call>>, string, string][] = [
          [
            'the bound token as Bearer',
            await call(app.url, '/jobs', { headers: { authorization: `Bearer ${world.token}` } }),
            'dpop.invalid_token',
            'invalid_token',
          ],
          [
            'a proof by another key',
            await call(app.url, '/jobs', {
              headers: dpop(world.proof(PUBLIC_JOBS, { signer: world.thief() })),
            }),
            'dpop.invalid_token',
            'invalid_token',
          ],
          [
            'a proof for the internal URL',
            await call(app.url, '/jobs', { headers: dpop(world.proof(`${app.url}/jobs`)) }),
            'dpop.invalid_proof',
            'invalid_dpop_proof',
          ],
          [
            'a proof for another method',
            await call(app.url, '/jobs', { headers: dpop(world.proof(PUBLIC_JOBS, { method: 'POST' })) }),
            'dpop.invalid_proof',
            'invalid_dpop_proof',
          ],
          [
            'a replayed proof',
            await call(app.url, '/jobs', { headers: dpop(once) }),
            'dpop.invalid_proof',
            'invalid_dpop_proof',
          ],
        ]
        for (const [what, answer, code, error] of refusals) {
          checkProblem(check, answer, 401, code)
          const challenge = answer.headers['www-authenticate'] ?? ''
          check(
            challenge.startsWith(`DPoP error="${error}", algs="`),
            `${what}: WWW-Authenticate ${challenge || '(none)'}`,
          )
        }
      } finally {
        await world.close()
      }
    },
  ),
  conformanceCase(
    'adapter.dpop-nonce',
    'with server nonces, a proof without one is answered 401 use_dpop_nonce with a DPoP-Nonce header, and the retry with that nonce is served',
    async (fixture, check) => {
      const world = await dpopWorld(true)
      try {
        const app = await fixture.start(world.scenario)
        const first = await call(app.url, '/jobs', {
          headers: { authorization: `DPoP ${world.token}`, dpop: world.proof(PUBLIC_JOBS) },
        })
        checkProblem(check, first, 401, 'dpop.nonce_required')
        check(
          (first.headers['www-authenticate'] ?? '').startsWith('DPoP error="use_dpop_nonce"'),
          `WWW-Authenticate ${first.headers['www-authenticate'] ?? '(none)'}`,
        )
        const nonce = first.headers['dpop-nonce']
        check(nonce !== undefined && world.nonces?.accepts(nonce, Date.now()) === true, 'a usable DPoP-Nonce')
        const retry = await call(app.url, '/jobs', {
          headers: {
            authorization: `DPoP ${world.token}`,
            dpop: world.proof(PUBLIC_JOBS, { nonce: nonce ?? '' }),
          },
        })
        check(retry.status === 200, `the retry with the nonce answered ${retry.status}`)
      } finally {
        await world.close()
      }
    },
  ),
]
