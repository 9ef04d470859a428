// GitHub (plain OAuth): identity by numeric user id only, and no reauthentication, ever.
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/portcullis-error.js'
import { OIDCError } from '../../src/oidc/errors.js'
import { GITHUB_ISSUER, GitHubOAuthProvider } from '../../src/oidc/github.js'
import {
  accountStore,
  CALLBACK,
  jsonResponse,
  lifecycleFor,
  scriptedNetwork,
  testProtector,
} from './support/wiring.js'

const CLIENT_ID = 'Iv1.github-client'

function github(user: () => Record<string, unknown>) {
  const tokenRequests: URLSearchParams[] = []
  const revocations: { authorization: string | null; body: string }[] = []
  const network = scriptedNetwork({
    'https://github.com/login/oauth/access_token': ({ init }) => {
      tokenRequests.push(new URLSearchParams(String(init.body)))
      return jsonResponse({
        access_token: `gho_${tokenRequests.length}`,
        token_type: 'bearer',
        scope: 'read:user',
      })
    },
    'https://api.github.com/user': () => jsonResponse(user()),
    [`https://api.github.com/applications/${CLIENT_ID}/token`]: ({ init }) => {
      revocations.push({
        authorization: new Headers(init.headers).get('authorization'),
        body: String(init.body),
      })
      return new Response(null, { status: 204 })
    },
  })
  const provider = new GitHubOAuthProvider({
    clientId: CLIENT_ID,
    clientSecret: 'github-secret',
    fetch: network.fetch,
    resolveHost: network.resolveHost,
  })
  const protector = testProtector()
  const accounts = accountStore(protector, 'github', CLIENT_ID)
  const { lifecycle, stepUp } = lifecycleFor(
    [{ provider, accounts, redirectUri: CALLBACK, provisionUnknown: true, retainTokens: true }],
    protector,
  )
  async function signIn() {
    const begun = await lifecycle.begin({ operation: 'login', provider: 'github' })
    const state = new URL(begun.redirectUrl).searchParams.get('state') as string
    return lifecycle.complete({
      provider: 'github',
      callback: `?code=c0de&state=${state}`,
      browserBinding: begun.browserBinding,
    })
  }
  return { provider, lifecycle, stepUp, accounts, signIn, tokenRequests, revocations }
}

describe('GitHubOAuthProvider', () => {
  it('identifies users by their numeric id, never by login name or email', async () => {
    let user: Record<string, unknown> = {
      id: 583231,
      login: 'octocat',
      email: 'octo@example.test',
      name: 'Octo',
    }
    const gh = github(() => user)
    const first = await gh.signIn()
    expect(first).toMatchObject({ operation: 'login', provisioned: true })
    expect(first.operation === 'login' && first.identity).toMatchObject({
      provider: 'github',
      issuer: GITHUB_ISSUER,
      subject: '583231',
    })
    // Renaming the GitHub account keeps the identity.
    user = { id: 583231, login: 'renamed-cat', email: 'new@example.test' }
    const renamed = await gh.signIn()
    expect(renamed).toMatchObject({ provisioned: false, accountId: first.accountId })
    // Someone else taking the old login name and email is someone else.
    user = { id: 999001, login: 'octocat', email: 'octo@example.test' }
    const impostor = await gh.signIn()
    expect(impostor).toMatchObject({ provisioned: true })
    expect(impostor.accountId).not.toBe(first.accountId)
  })

  it('sends PKCE S256 and no nonce, and exchanges the code with the verifier', async () => {
    const gh = github(() => ({ id: 1, login: 'a' }))
    const begun = await gh.lifecycle.begin({ operation: 'login', provider: 'github' })
    const query = new URL(begun.redirectUrl).searchParams
    expect(new URL(begun.redirectUrl).origin).toBe('https://github.com')
    expect(query.get('code_challenge_method')).toBe('S256')
    expect(query.has('nonce')).toBe(false)
    const state = query.get('state') as string
    await gh.lifecycle.complete({
      provider: 'github',
      callback: `?code=c&state=${state}`,
      browserBinding: begun.browserBinding,
    })
    expect(gh.tokenRequests[0]?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it.each([[{ login: 'no-id' }], [{ id: '583231', login: 'string-id' }], [{ id: -1 }], [{ id: 1.5 }]])(
    'refuses a user without a positive numeric id: %j',
    async (user) => {
      const gh = github(() => user)
      const error = await gh.signIn().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(OIDCError)
      expect(error).toMatchObject({ code: 'oidc.callback.rejected', reason: 'user-id' })
    },
  )

  it('cannot be configured for reauthentication (type error, and ConfigurationError at startup)', () => {
    const gh = github(() => ({ id: 1 }))
    const protector = testProtector()
    const build = () =>
      lifecycleFor(
        [
          // @ts-expect-error GitHub has no signed auth_time: a reauthentication policy is refused by the types.
          {
            provider: gh.provider,
            accounts: accountStore(protector, 'github', CLIENT_ID),
            redirectUri: CALLBACK,
            reauthentication: { 'delete-account': { maxAge: 0 } },
          },
        ],
        protector,
      )
    expect(build).toThrow(ConfigurationError)
    expect(build).toThrow(/cannot reauthenticate/)
  })

  it('refuses to begin a reauthentication', async () => {
    const gh = github(() => ({ id: 7, login: 'seven' }))
    const login = await gh.signIn()
    const session = { accountId: login.accountId, securityEpoch: 0, sessionHandle: 'session-7' }
    await expect(
      gh.lifecycle.begin({
        operation: 'reauthenticate',
        provider: 'github',
        purpose: 'delete-account',
        session,
      }),
    ).rejects.toMatchObject({ code: 'oidc.reauthentication.not_configured' })
    expect(gh.lifecycle.canReauthenticate('github', 'delete-account')).toBe(false)
  })

  it('revokes the retained token through the GitHub applications API', async () => {
    const gh = github(() => ({ id: 42, login: 'answer' }))
    const login = await gh.signIn()
    const session = { accountId: login.accountId, securityEpoch: 0, sessionHandle: 'session-42' }
    const credential = await gh.stepUp.issue({
      accountId: login.accountId,
      purpose: 'oauth-provider-token-management',
      securityEpoch: 0,
      sessionBinding: session.sessionHandle,
    })
    const outcome = await gh.lifecycle.revokeProviderTokens({
      provider: 'github',
      session,
      stepUpToken: credential.reveal(),
    })
    expect(outcome).toEqual({ status: 'revoked' })
    expect(gh.revocations).toHaveLength(1)
    expect(gh.revocations[0]?.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:github-secret`).toString('base64')}`,
    )
    expect(JSON.parse(gh.revocations[0]?.body ?? '{}')).toEqual({ access_token: 'gho_1' })
  })
})
