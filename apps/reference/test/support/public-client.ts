// A public MCP client registered with the app's authorization server (RFC 7591) and the authorization
// request that opens its consent page in a browser: what the browser tests of that page share.

/** Where the test clients are sent back to: nothing listens there (the browser's request is enough). */
export const PUBLIC_CLIENT_REDIRECT = 'http://127.0.0.1:9/callback'

/** Registers a public client named `clientName`; answers its id. */
export async function registerPublicClient(appUrl: string, clientName: string): Promise<string> {
  const registered = await fetch(`${appUrl}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [PUBLIC_CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
  if (registered.status !== 201) throw new Error(`client registration answered ${registered.status}`)
  return ((await registered.json()) as { client_id: string }).client_id
}

/** The authorization request of `clientId` for `resources:read` on the app's MCP endpoint (PKCE S256). */
export function authorizationUrl(appUrl: string, clientId: string, state: string): string {
  const authorize = new URL(`${appUrl}/oauth/auth`)
  for (const [name, value] of Object.entries({
    client_id: clientId,
    redirect_uri: PUBLIC_CLIENT_REDIRECT,
    response_type: 'code',
    scope: 'resources:read',
    resource: `${appUrl}/mcp`,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state,
  })) {
    authorize.searchParams.set(name, value)
  }
  return authorize.href
}
