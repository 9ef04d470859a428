import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { consentPage, post } from './interactions/support/flow.js'
import { ACCOUNT_ID, type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode, refresh } from './support/oauth-client.js'
import {
  authorizationUrl,
  connect,
  type FullStack,
  startFullStack,
} from './support/server-with-interactions.js'

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

describe('connected apps keep the client as the consent page showed it', () => {
  let stack: FullStack
  beforeAll(async () => {
    stack = await startFullStack('express')
  })
  afterAll(async () => stack.close())

  it('lists the name shown at consent with no lookup, while the metadata document host is down', async () => {
    const accountId = await stack.newAccount('kim')
    const { grantId } = await connect(stack, accountId, new Date())
    const path = new URL(stack.webClientId).pathname
    stack.documents.routes.set(path, { status: 503, body: 'down' })
    const hits = stack.documents.hits.get(path)
    const [app] = await stack.server.connectedApps(accountId)
    expect(app).toMatchObject({
      grantId,
      clientId: stack.webClientId,
      clientName: 'Notes Assistant',
      clientHost: new URL(stack.documents.origin).host,
    })
    expect(stack.documents.hits.get(path)).toBe(hits)
    // What the store keeps is what the page showed: the listing reads it from the grant's entry.
    expect((await stack.store.list(accountId))[0]?.clientName).toBe('Notes Assistant')
  })

  it('keeps the name of the latest consent when the grant grows', async () => {
    const accountId = await stack.newAccount('lee')
    const { browser } = await connect(stack, accountId, new Date())
    const path = new URL(stack.webClientId).pathname
    const document = stack.documents.routes.get(path)
    stack.documents.routes.set(path, {
      body: { ...(document?.body as Record<string, unknown>), client_name: 'Notes Assistant 2' },
    })
    const grown = authorizationUrl(stack, { scope: 'notes:read notes:write' })
    const page = await consentPage(browser, grown.url)
    await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
    const apps = await stack.server.connectedApps(accountId)
    expect(apps).toHaveLength(1)
    // The client may have been cached by the provider: the name is the one this consent page showed.
    expect(page.html).toContain(`data-client-name>${apps[0]?.clientName}<`)
    expect(apps[0]?.scopes).toEqual(['notes:read', 'notes:write'])
  })
})
