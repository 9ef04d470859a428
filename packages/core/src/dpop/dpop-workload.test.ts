import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dpopClientKey, dpopProof, requestSource } from '../../test/support/dpop.js'
import { startWorkloadFixture, type WorkloadFixture } from '../../test/support/workload-fixture.js'
import { MemoryRateLimitStore } from '../local-accounts/rate-limits/memory-rate-limit-store.js'

let fixture: WorkloadFixture
beforeAll(async () => {
  fixture = await startWorkloadFixture()
})
afterAll(() => fixture.close())

const URL = 'https://api.example/jobs'

describe('workloadJwt with DPoP-bound tokens (cnf.jkt)', () => {
  it('accepts a bound workload token with its proof (cached or not), refuses it as Bearer or with another key', async () => {
    const client = await dpopClientKey('ES256')
    const thief = await dpopClientKey('ES256')
    const token = fixture.token({ payload: { cnf: { jkt: client.thumbprint } } })
    for (const cache of [false, {}] as const) {
      const mechanism = fixture.mechanism({
        cache,
        dpop: { origins: ['https://api.example'], replay: new MemoryRateLimitStore() },
      })
      const at = (proof: string | undefined, scheme = 'DPoP') =>
        mechanism.authenticate(
          requestSource(
            { authorization: `${scheme} ${token}`, ...(proof === undefined ? {} : { dpop: proof }) },
            'POST',
            '/jobs',
          ),
        )
      const proof = () => dpopProof(client, { method: 'POST', url: URL, token, iat: fixture.nowSeconds })
      const accepted = await at(proof())
      expect(accepted.kind).toBe('authenticated')
      expect(accepted.kind === 'authenticated' && accepted.evidence.attributes?.dpopJkt).toBe(
        client.thumbprint,
      )
      expect((await at(proof())).kind).toBe('authenticated')
      const asBearer = await at(undefined, 'Bearer')
      expect(asBearer.kind === 'invalid' && asBearer.reason).toBe('workload-jwt: dpop.bound_token_as_bearer')
      const stolen = await at(dpopProof(thief, { method: 'POST', url: URL, token, iat: fixture.nowSeconds }))
      expect(stolen.kind === 'invalid' && stolen.reason).toBe('workload-jwt: dpop.key_mismatch')
    }
    const plain = await fixture
      .mechanism()
      .authenticate(requestSource({ authorization: `Bearer ${token}` }, 'POST', '/jobs'))
    expect(plain).toEqual({ kind: 'invalid', reason: 'workload-jwt: dpop.bound_token_as_bearer' })
  })
})
