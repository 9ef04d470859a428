import { PortcullisError } from '@portcullis/core/errors'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { type Harness, OTHER_RESOURCE, RESOURCE, startHarness } from './support/harness.js'
import { authorize, postForm, redeemCode, refresh } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

/** A store outage as the Postgres stores report it (class `unavailable`, with a pause to wait). */
class StoreDown extends PortcullisError {
  readonly retryAfterSeconds = 7
  constructor() {
    super('test.unavailable', 'unavailable', 'the database is unavailable')
  }
}

let h: Harness
let clientId: string
beforeAll(async () => {
  h = await startHarness()
  clientId = h.documents.client('/grants.json')
})
afterAll(async () => h.close())

/**
 * Holds every `find` of the model until `count` of them are waiting, so concurrent requests all read the
 * entry before any consumes it (the race the persistence bridge closes), then restores `find`.
 */
function lineUpFinds(model: string, count: number): void {
  const find = h.store.find.bind(h.store)
  const waiting: (() => void)[] = []
  h.store.find = async (name, key) => {
    if (name === model) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve)
        if (waiting.length === count) {
          h.store.find = find
          for (const release of waiting) release()
        }
      })
    }
    return find(name, key)
  }
}

async function connect(scope = 'notes:read') {
  const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE, scope })
  if (outcome.code === undefined) throw new Error(`no code: ${outcome.redirect?.href}`)
  const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code, outcome.verifier)
  expect(token.status).toBe(200)
  const grantId = decodeJwt(token.body.access_token as string)[GRANT_ID_CLAIM] as string
  return { token: token.body, grantId, code: outcome.code, verifier: outcome.verifier }
}

describe('refresh tokens', () => {
  it('rotate on every use, and a rotated token used again revokes the whole grant', async () => {
    const { token, grantId } = await connect()
    const first = await refresh(h.issuer, clientId, token.refresh_token as string)
    expect(first.status).toBe(200)
    const second = await refresh(h.issuer, clientId, first.body.refresh_token as string)
    expect(second.status).toBe(200)

    const reused = await refresh(h.issuer, clientId, token.refresh_token as string)
    expect(reused.status).toBe(400)
    expect(reused.body.error).toBe('invalid_grant')
    expect(h.revoked).toContain(grantId)
    expect(await h.store.status(grantId)).toBeUndefined()
    const later = await refresh(h.issuer, clientId, second.body.refresh_token as string)
    expect(later.status).toBe(400)
    expect(later.body.error).toBe('invalid_grant')
  })

  it('used concurrently: exactly one request wins and the grant is revoked', async () => {
    const { token, grantId } = await connect()
    lineUpFinds('RefreshToken', 6)
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => refresh(h.issuer, clientId, token.refresh_token as string)),
    )
    const winners = answers.filter((answer) => answer.status === 200)
    expect(winners).toHaveLength(1)
    expect(answers.filter((answer) => answer.body.error === 'invalid_grant')).toHaveLength(5)
    expect(h.revoked).toContain(grantId)
    expect(await h.store.status(grantId)).toBeUndefined()
    const winner = winners[0]?.body.refresh_token as string
    expect((await refresh(h.issuer, clientId, winner)).body.error).toBe('invalid_grant')
  })

  it('refuse a scope the grant does not hold (no escalation on refresh)', async () => {
    const { token, grantId } = await connect('notes:read')
    const escalated = await refresh(h.issuer, clientId, token.refresh_token as string, {
      scope: 'notes:read notes:write',
    })
    expect(escalated.status).toBe(400)
    expect(escalated.body.error).toBe('invalid_scope')
    expect(await h.store.status(grantId)).toBeDefined()
  })

  it('refused for any reason, are not spent: the same token refreshes afterwards and the grant stays', async () => {
    const other = h.documents.client('/grants-other.json')
    const refusals: readonly [string, Record<string, string>, string][] = [
      ['another resource the grant does not cover', { resource: OTHER_RESOURCE }, 'invalid_target'],
      ['a resource the server does not know', { resource: 'https://unknown.example/mcp' }, 'invalid_target'],
      ['more scope than the grant holds', { scope: 'notes:read notes:write' }, 'invalid_scope'],
      ['another client', { client_id: other }, 'invalid_grant'],
    ]
    const { token, grantId } = await connect('notes:read')
    let current = token.refresh_token as string
    for (const [what, extra, error] of refusals) {
      const refused = await refresh(h.issuer, clientId, current, extra)
      expect({ what, status: refused.status, error: refused.body.error }).toEqual({
        what,
        status: 400,
        error,
      })
      expect(refused.body.access_token).toBeUndefined()
      expect((await h.store.find('RefreshToken', { id: current }))?.consumedAt).toBeUndefined()
      const next = await refresh(h.issuer, clientId, current)
      expect({ what, status: next.status }).toEqual({ what, status: 200 })
      current = next.body.refresh_token as string
    }
    expect(h.revoked).not.toContain(grantId)
    expect(await h.store.status(grantId)).toBeDefined()
  })

  it('a rotation the store fails to save answers 503 with Retry-After and leaves the old token usable', async () => {
    const { token, grantId } = await connect()
    const rotate = h.store.rotate.bind(h.store)
    let failures = 0
    h.store.rotate = async (model, id, replacement) => {
      if (failures === 0) {
        failures += 1
        throw new StoreDown()
      }
      return rotate(model, id, replacement)
    }
    try {
      const response = await fetch(`${h.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: token.refresh_token as string,
        }),
      })
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('7')
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      const body = (await response.json()) as Record<string, unknown>
      expect(body.error).toBe('temporarily_unavailable')
      expect(body.access_token).toBeUndefined()
      expect(JSON.stringify(body)).not.toContain('database')
    } finally {
      h.store.rotate = rotate
    }
    const retry = await refresh(h.issuer, clientId, token.refresh_token as string)
    expect(retry.status).toBe(200)
    expect(h.revoked).not.toContain(grantId)
    expect((await refresh(h.issuer, clientId, retry.body.refresh_token as string)).status).toBe(200)
  })

  it('an authorization request while the store is down is refused with temporarily_unavailable, not 500', async () => {
    const upsert = h.store.upsert.bind(h.store)
    const find = h.store.find.bind(h.store)
    h.store.upsert = async () => {
      throw new StoreDown()
    }
    h.store.find = async () => {
      throw new StoreDown()
    }
    try {
      const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
      expect(outcome.code).toBeUndefined()
      // The client's redirect URI cannot be checked without the store: the server answers itself.
      expect(outcome.redirect).toBeUndefined()
      expect(outcome.response.status).toBe(503)
      expect(outcome.response.headers.get('retry-after')).toBe('7')
      await outcome.response.body?.cancel()
    } finally {
      h.store.upsert = upsert
      h.store.find = find
    }
  })

  it('answer 503 temporarily_unavailable, not 500, when the store cannot be read', async () => {
    const { token } = await connect()
    const find = h.store.find.bind(h.store)
    h.store.find = async () => {
      throw new StoreDown()
    }
    try {
      const refused = await refresh(h.issuer, clientId, token.refresh_token as string)
      expect(refused.status).toBe(503)
      expect(refused.body.error).toBe('temporarily_unavailable')
    } finally {
      h.store.find = find
    }
    expect((await refresh(h.issuer, clientId, token.refresh_token as string)).status).toBe(200)
  })

  it('are issued without offline_access and revoked through the RFC 7009 endpoint', async () => {
    const { token, grantId } = await connect()
    const revoked = await postForm(`${h.issuer}/token/revocation`, {
      token: token.refresh_token as string,
      token_type_hint: 'refresh_token',
      client_id: clientId,
    })
    expect(revoked.status).toBe(200)
    expect(await h.store.status(grantId)).toBeUndefined()
    expect((await refresh(h.issuer, clientId, token.refresh_token as string)).body.error).toBe(
      'invalid_grant',
    )
  })
})

describe('authorization codes', () => {
  it('replayed: refused, and the grant of the first redemption is revoked', async () => {
    const { token, grantId, code, verifier } = await connect()
    const replay = await redeemCode(h.issuer, clientId, REDIRECT, code, verifier)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    expect(h.revoked).toContain(grantId)
    expect(await h.store.status(grantId)).toBeUndefined()
    expect((await refresh(h.issuer, clientId, token.refresh_token as string)).body.error).toBe(
      'invalid_grant',
    )
  })

  it('redeemed concurrently: one winner, the grant revoked', async () => {
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    lineUpFinds('AuthorizationCode', 4)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string, outcome.verifier),
      ),
    )
    const winners = answers.filter((answer) => answer.status === 200)
    expect(winners).toHaveLength(1)
    const grantId = decodeJwt(winners[0]?.body.access_token as string)[GRANT_ID_CLAIM] as string
    expect(h.revoked).toContain(grantId)
    expect(await h.store.status(grantId)).toBeUndefined()
  })

  it('need the PKCE verifier: a wrong or missing one is refused', async () => {
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const missing = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string)
    expect(missing.body.error).toBe('invalid_grant')
    const other = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const wrong = await redeemCode(h.issuer, clientId, REDIRECT, other.code as string, outcome.verifier)
    expect(wrong.body.error).toBe('invalid_grant')
  })
})

describe('several resources in one authorization', () => {
  it("give each access token exactly one audience and only that resource's scopes", async () => {
    const outcome = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: [RESOURCE, OTHER_RESOURCE],
      scope: 'notes:read files:read',
    })
    const token = await postForm(`${h.issuer}/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code: outcome.code as string,
      code_verifier: outcome.verifier,
      resource: OTHER_RESOURCE,
    })
    expect(token.status).toBe(200)
    expect(decodeJwt(token.body.access_token as string)).toMatchObject({
      aud: OTHER_RESOURCE,
      scope: 'files:read',
    })
    const notes = await refresh(h.issuer, clientId, token.body.refresh_token as string, {
      resource: RESOURCE,
    })
    expect(notes.status).toBe(200)
    expect(decodeJwt(notes.body.access_token as string)).toMatchObject({ aud: RESOURCE, scope: 'notes:read' })
    const both = await refresh(h.issuer, clientId, notes.body.refresh_token as string)
    expect(both.status).toBe(400)
    expect(both.body.error).toBe('invalid_target')
  })
})

describe('authorization requests', () => {
  it('without PKCE, or with the plain method, are refused', async () => {
    const missing = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: RESOURCE,
      challenge: null,
    })
    expect(missing.code).toBeUndefined()
    expect(missing.redirect?.searchParams.get('error')).toBe('invalid_request')
    const plain = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: RESOURCE,
      challenge: 'a'.repeat(43),
      challengeMethod: 'plain',
    })
    expect(plain.code).toBeUndefined()
    expect(plain.redirect?.searchParams.get('error')).toBe('invalid_request')
  })

  it('for an unconfigured resource are refused with invalid_target', async () => {
    const outcome = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: 'https://evil.example/mcp',
    })
    expect(outcome.code).toBeUndefined()
    expect(outcome.redirect?.searchParams.get('error')).toBe('invalid_target')
  })

  it('without a resource are refused when several resources are configured', async () => {
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT })
    expect(outcome.code).toBeUndefined()
    expect(outcome.redirect?.searchParams.get('error')).toBe('invalid_target')
  })

  it('other response types are refused', async () => {
    const url = new URL(`${h.issuer}/auth`)
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'token',
      redirect_uri: REDIRECT,
      scope: 'notes:read',
      resource: RESOURCE,
    }).toString()
    const response = await fetch(url, { redirect: 'manual' })
    const location = new URL(response.headers.get('location') ?? 'about:blank')
    expect(new URLSearchParams(location.hash.slice(1)).get('error')).toBe('unsupported_response_type')
  })
})
