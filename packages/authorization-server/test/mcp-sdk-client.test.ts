import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js'
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { ACCOUNT_ID, type Harness, type Mount, RESOURCE, startHarness } from './support/harness.js'
import { Browser } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:33418/callback'

async function discover(issuer: string): Promise<AuthorizationServerMetadata> {
  const metadata = await discoverAuthorizationServerMetadata(issuer)
  if (metadata === undefined) throw new Error('no metadata discovered')
  return metadata
}

/** Follows the SDK's authorization URL through the interaction to the redirect back to the client. */
async function codeFor(h: Harness, authorizationUrl: URL): Promise<URL> {
  const browser = new Browser()
  let next = authorizationUrl.href
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await browser.get(next)
    const target = new URL(response.headers.get('location') ?? '', next)
    if (!target.href.startsWith(`${h.issuer}/`)) return target
    next = target.href
  }
  throw new Error('too many redirects')
}

describe.each<Mount>(['express', 'fastify'])(
  'the official MCP SDK client against the server on %s',
  (mount) => {
    let h: Harness
    beforeAll(async () => {
      h = await startHarness({ mount, overrides: { registration: {} } })
    })
    afterAll(async () => h.close())

    it('discovers the metadata by RFC 8414 path insertion and completes the flow with a metadata document', async () => {
      const metadata = await discover(h.issuer)
      expect(metadata.issuer).toBe(h.issuer)
      expect(metadata.client_id_metadata_document_supported).toBe(true)

      const clientId = h.documents.client('/sdk-client.json', { client_name: 'SDK client' })
      const { authorizationUrl, codeVerifier } = await startAuthorization(h.issuer, {
        metadata,
        clientInformation: { client_id: clientId },
        redirectUrl: REDIRECT,
        scope: 'notes:read',
        resource: new URL(RESOURCE),
      })
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256')
      const back = await codeFor(h, authorizationUrl)
      const tokens = await exchangeAuthorization(h.issuer, {
        metadata,
        clientInformation: { client_id: clientId },
        authorizationCode: back.searchParams.get('code') as string,
        codeVerifier,
        redirectUri: REDIRECT,
        resource: new URL(RESOURCE),
      })
      const claims = decodeJwt(tokens.access_token)
      expect(claims).toMatchObject({
        aud: RESOURCE,
        sub: ACCOUNT_ID,
        client_id: clientId,
        scope: 'notes:read',
      })

      const refreshed = await refreshAuthorization(h.issuer, {
        metadata,
        clientInformation: { client_id: clientId },
        refreshToken: tokens.refresh_token as string,
        resource: new URL(RESOURCE),
      })
      expect(decodeJwt(refreshed.access_token)[GRANT_ID_CLAIM]).toBe(claims[GRANT_ID_CLAIM])
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
      await expect(
        refreshAuthorization(h.issuer, {
          metadata,
          clientInformation: { client_id: clientId },
          refreshToken: tokens.refresh_token as string,
          resource: new URL(RESOURCE),
        }),
      ).rejects.toThrow()
      expect(await h.store.status(claims[GRANT_ID_CLAIM] as string)).toBeUndefined()
    })

    it('registers through RFC 7591 when registration is on, then signs in', async () => {
      const metadata = await discover(h.issuer)
      const client = await registerClient(h.issuer, {
        metadata,
        clientMetadata: {
          client_name: 'SDK registered client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        },
      })
      const { authorizationUrl, codeVerifier } = await startAuthorization(h.issuer, {
        metadata,
        clientInformation: client,
        redirectUrl: REDIRECT,
        scope: 'notes:read',
        resource: new URL(RESOURCE),
      })
      const back = await codeFor(h, authorizationUrl)
      const tokens = await exchangeAuthorization(h.issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: back.searchParams.get('code') as string,
        codeVerifier,
        redirectUri: REDIRECT,
        resource: new URL(RESOURCE),
      })
      expect(decodeJwt(tokens.access_token).client_id).toBe(client.client_id)
      const apps = await h.server.connectedApps(ACCOUNT_ID)
      expect(apps.map((app) => app.clientName)).toContain('SDK registered client')
    })
  },
)
