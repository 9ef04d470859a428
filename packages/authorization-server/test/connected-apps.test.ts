import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { ACCOUNT_ID, type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode, refresh } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

describe('connected apps', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(async () => h.close())

  it('lists grants with the client name and host, and disconnect ends every token of one grant', async () => {
    const clientId = h.documents.client('/apps.json', { client_name: 'Notes agent' })
    const outcome = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: RESOURCE,
      scope: 'notes:read notes:write',
    })
    const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string, outcome.verifier)
    const grantId = decodeJwt(token.body.access_token as string)[GRANT_ID_CLAIM] as string

    const apps = await h.server.connectedApps(ACCOUNT_ID)
    const app = apps.find((entry) => entry.grantId === grantId)
    expect(app).toMatchObject({
      clientId,
      clientName: 'Notes agent',
      clientHost: new URL(h.documents.origin).host,
      resources: [RESOURCE],
      scopes: ['notes:read', 'notes:write'],
    })

    expect(await h.server.disconnect('someone-else', grantId)).toBe(false)
    expect(await h.store.status(grantId)).toBeDefined()
    expect(await h.server.disconnect(ACCOUNT_ID, grantId)).toBe(true)
    expect(await h.store.status(grantId)).toBeUndefined()
    expect((await h.server.connectedApps(ACCOUNT_ID)).some((entry) => entry.grantId === grantId)).toBe(false)
    expect((await refresh(h.issuer, clientId, token.body.refresh_token as string)).body.error).toBe(
      'invalid_grant',
    )
  })

  it('end when the account is disabled: no refresh for a disabled account', async () => {
    const clientId = h.documents.client('/disabled.json')
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string, outcome.verifier)
    const grantId = decodeJwt(token.body.access_token as string)[GRANT_ID_CLAIM] as string
    await h.accounts.setAccountStatus({ accountId: ACCOUNT_ID, status: 'disabled', now: new Date() })
    try {
      expect(await h.store.status(grantId)).toBeUndefined()
      expect((await refresh(h.issuer, clientId, token.body.refresh_token as string)).body.error).toBe(
        'invalid_grant',
      )
    } finally {
      await h.accounts.setAccountStatus({ accountId: ACCOUNT_ID, status: 'active', now: new Date() })
    }
  })
})
