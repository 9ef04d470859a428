import type { OAuthServerEntry } from '@portcullis/core/authorization-server'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  freshAccount,
  freshId,
  grantEntry,
  grantToken,
  heardGrant,
  type OAuthServerStoreContext,
  RESOURCE,
  time,
} from './fixture.js'

type Case = ConformanceCase<OAuthServerStoreContext>

/** The only fields a grant summary may have. */
const SUMMARY_FIELDS = [
  'accountId',
  'clientHost',
  'clientId',
  'clientName',
  'createdAt',
  'expiresAt',
  'grantId',
  'lastUsedAt',
  'resources',
  'scopes',
].join(',')

const present = async (context: OAuthServerStoreContext, entry: OAuthServerEntry) =>
  (await context.fixture.store.find(entry.model, { id: entry.id })) !== undefined

export const grantCases: readonly Case[] = [
  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.revoke-grant',
    'revokeGrant removes every entry of the grant (the grant included) and only those, and a grant notice is heard',
    async (context, check) => {
      const { fixture, clock } = context
      const { store } = fixture
      const accountId = await freshAccount(fixture)
      const grant = grantEntry(accountId, clock)
      const other = grantEntry(accountId, clock)
      const mine = ['AuthorizationCode', 'AccessToken', 'RefreshToken', 'Interaction'].map((model) =>
        grantToken(model, grant, clock),
      )
      const theirs = ['AccessToken', 'RefreshToken'].map((model) => grantToken(model, other, clock))
      const loose: OAuthServerEntry = {
        model: 'Session',
        id: freshId(),
        payload: { accountId },
        expiresAt: undefined,
      }
      for (const entry of [grant, other, ...mine, ...theirs, loose]) await store.upsert(entry)
      await store.revokeGrant(grant.id)
      for (const entry of [grant, ...mine]) {
        check(!(await present(context, entry)), `${entry.model} of the revoked grant is still found`)
      }
      for (const entry of [other, ...theirs, loose]) {
        check(await present(context, entry), `${entry.model} outside the revoked grant was removed`)
      }
      check((await store.status(grant.id)) === undefined, 'the revoked grant is active')
      check((await store.status(other.id)) !== undefined, 'the other grant ended')
      await heardGrant(fixture, grant.id, check)
      const unknown = freshId()
      await store.revokeGrant(unknown)
      await heardGrant(fixture, unknown, check)
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.grant-status',
    'status is the grant while its account exists, is active and keeps the epoch the grant was saved with; else undefined',
    async ({ fixture, clock }, check) => {
      const { store, accounts } = fixture
      const now = clock.now
      const [active, bumped, disabled, deleted] = [
        await freshAccount(fixture),
        await freshAccount(fixture),
        await freshAccount(fixture),
        await freshAccount(fixture),
      ]
      const grants = [active, bumped, disabled, deleted].map((accountId) => grantEntry(accountId, clock))
      const orphan = grantEntry(`account-${freshId()}`, clock)
      for (const grant of [...grants, orphan]) await store.upsert(grant)
      const [activeGrant, bumpedGrant, disabledGrant, deletedGrant] = grants
      if (!activeGrant || !bumpedGrant || !disabledGrant || !deletedGrant) return
      const status = await store.status(activeGrant.id)
      check(
        status?.grantId === activeGrant.id &&
          status.accountId === active &&
          status.clientId === activeGrant.payload.clientId,
        `status of an active grant: ${JSON.stringify(status)}`,
      )
      for (const grant of [bumpedGrant, disabledGrant, deletedGrant]) {
        check((await store.status(grant.id)) !== undefined, 'a grant of an active account is not active')
      }
      await accounts.bumpSecurityEpoch({ accountId: bumped, now })
      await accounts.setAccountStatus({ accountId: disabled, status: 'disabled', now })
      const outcome = await accounts.deleteAccount({ accountId: deleted, now })
      check(outcome.outcome === 'deleted', `setup: deleteAccount answered ${outcome.outcome}`)
      check(
        (await store.status(bumpedGrant.id)) === undefined,
        'a grant outlived its epoch (sign-out everywhere)',
      )
      check((await store.status(disabledGrant.id)) === undefined, 'a grant of a disabled account is active')
      check((await store.status(deletedGrant.id)) === undefined, 'a grant of a deleted account is active')
      check((await store.status(orphan.id)) === undefined, 'a grant of an unknown account is active')
      check((await store.status(activeGrant.id)) !== undefined, "another account's change ended a grant")
      check((await store.list(bumped)).length === 0, 'a grant past its epoch is listed')
      check((await store.list(disabled)).length === 0, 'a grant of a disabled account is listed')
      await accounts.setAccountStatus({ accountId: disabled, status: 'active', now })
      check(
        (await store.status(disabledGrant.id)) === undefined,
        'enabling the account again revived a grant',
      )
      const token = grantToken('AccessToken', activeGrant, clock)
      await store.upsert(token)
      check((await store.status(token.id)) === undefined, 'a token id answered as a grant')
      check((await store.status(freshId())) === undefined, 'an unknown grant is active')
      check((await store.status('')) === undefined, 'an empty grant id is active')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.disconnect-owner',
    "disconnect ends a grant only for its owner: another account's call answers false and changes nothing",
    async ({ fixture, clock }, check) => {
      const { store } = fixture
      const owner = await freshAccount(fixture)
      const stranger = await freshAccount(fixture)
      const grant = grantEntry(owner, clock)
      const token = grantToken('RefreshToken', grant, clock)
      await store.upsert(grant)
      await store.upsert(token)
      check(
        (await store.disconnect(stranger, grant.id)) === false,
        "a stranger disconnected the owner's grant",
      )
      check((await store.status(grant.id)) !== undefined, "a stranger's disconnect ended the grant")
      check((await store.find('RefreshToken', { id: token.id })) !== undefined, 'a stranger removed a token')
      check((await store.disconnect(owner, freshId())) === false, 'an unknown grant was disconnected')
      check((await store.disconnect(owner, token.id)) === false, 'a token id was disconnected as a grant')
      check((await store.disconnect(owner, grant.id)) === true, 'the owner could not disconnect')
      check((await store.status(grant.id)) === undefined, 'a disconnected grant is active')
      check((await store.find('RefreshToken', { id: token.id })) === undefined, 'a token outlived its grant')
      check((await store.list(owner)).length === 0, 'a disconnected grant is listed')
      await heardGrant(fixture, grant.id, check)
      check((await store.disconnect(owner, grant.id)) === false, 'a grant was disconnected twice')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.list',
    "list holds the account's active grants only, newest first (ties by grant id), each summarized from its payload",
    async ({ fixture, clock }, check) => {
      const { store } = fixture
      const accountId = await freshAccount(fixture)
      const someoneElse = await freshAccount(fixture)
      const first = grantEntry(accountId, clock, {
        clientId: 'client-first',
        resources: { 'https://b.example/': 'b:write a:read', 'https://a.example/': '' },
      })
      await store.upsert(first)
      const firstAt = clock.read()
      clock.advance(1_000)
      // Two grants at one instant: code-point order of their ids (upper case sorts before lower case).
      const tiedA = grantEntry(accountId, clock, { id: `A${freshId()}` })
      const tiedB = grantEntry(accountId, clock, { id: `b${freshId()}` })
      await store.upsert(tiedB)
      await store.upsert(tiedA)
      const tiedAt = clock.read()
      clock.advance(1_000)
      const revoked = grantEntry(accountId, clock)
      await store.upsert(revoked)
      await store.upsert(grantEntry(someoneElse, clock))
      await store.revokeGrant(revoked.id)
      const listed = await store.list(accountId)
      const order = listed.map((summary) => summary.grantId).join(',')
      check(order === [tiedA.id, tiedB.id, first.id].join(','), `listed ${order}`)
      const summary = listed.find((each) => each.grantId === first.id)
      check(summary !== undefined, 'the first grant is missing')
      if (summary === undefined) return
      check(Object.keys(summary).sort().join(',') === SUMMARY_FIELDS, `fields ${Object.keys(summary)}`)
      check(summary.accountId === accountId && summary.clientId === 'client-first', 'owner or client differs')
      check(summary.scopes.join(' ') === 'a:read b:write email openid', `scopes ${summary.scopes.join(' ')}`)
      check(
        summary.resources.join(' ') === 'https://a.example/ https://b.example/',
        `resources ${summary.resources.join(' ')}`,
      )
      check(time(summary.createdAt) === firstAt, `createdAt ${summary.createdAt.toISOString()}`)
      check(time(summary.expiresAt) === time(first.expiresAt), 'expiresAt differs')
      check(summary.lastUsedAt === undefined, 'an unused grant has a lastUsedAt')
      const tied = listed.find((each) => each.grantId === tiedA.id)
      check(time(tied?.createdAt) === tiedAt, 'createdAt of a later grant differs')
      check(tied?.resources.join(' ') === RESOURCE, 'the default resource is missing')
      check((await store.list(`account-${freshId()}`)).length === 0, 'an unknown account has grants')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.list-consented-client',
    "list gives each grant the client's name and host kept in its payload (`consentedClient`), nothing for a grant without them or with malformed ones",
    async ({ fixture, clock }, check) => {
      const { store } = fixture
      const accountId = await freshAccount(fixture)
      const withClient = (consentedClient: unknown) => {
        const grant = grantEntry(accountId, clock)
        return { ...grant, payload: { ...grant.payload, consentedClient } }
      }
      const shown = withClient({ name: 'Notes Assistant ✓', host: 'client.example:8443' })
      const bare = grantEntry(accountId, clock)
      const malformed = withClient({ name: 42, host: ['a'] })
      const huge = withClient({ name: 'n'.repeat(513), host: '' })
      for (const grant of [shown, bare, malformed, huge]) await store.upsert(grant)
      const listed = new Map((await store.list(accountId)).map((summary) => [summary.grantId, summary]))
      const of = (id: string) => listed.get(id)
      check(of(shown.id)?.clientName === 'Notes Assistant ✓', `name ${of(shown.id)?.clientName}`)
      check(of(shown.id)?.clientHost === 'client.example:8443', `host ${of(shown.id)?.clientHost}`)
      for (const grant of [bare, malformed, huge]) {
        const summary = of(grant.id)
        check(summary !== undefined, 'a grant is missing')
        check(
          summary?.clientName === undefined && summary?.clientHost === undefined,
          'a name or host was made up',
        )
      }
      // Saving the grant again (a consent that grows it) keeps what the newest payload says.
      await store.upsert({ ...shown, payload: { ...shown.payload, consentedClient: { name: 'Renamed' } } })
      const again = (await store.list(accountId)).find((summary) => summary.grantId === shown.id)
      check(
        again?.clientName === 'Renamed' && again.clientHost === undefined,
        'the saved-again grant differs',
      )
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.last-used',
    "saving a token of a grant moves the grant's lastUsedAt; saving the grant again keeps createdAt and lastUsedAt",
    async ({ fixture, clock }, check) => {
      const { store } = fixture
      const accountId = await freshAccount(fixture)
      const grant = grantEntry(accountId, clock)
      const other = grantEntry(accountId, clock)
      const createdAt = clock.read()
      await store.upsert(grant)
      await store.upsert(other)
      const lastUsed = async (grantId: string) =>
        time((await store.list(accountId)).find((summary) => summary.grantId === grantId)?.lastUsedAt)
      check((await lastUsed(grant.id)) === undefined, 'a fresh grant was used')
      clock.advance(5_000)
      await store.upsert(grantToken('AuthorizationCode', grant, clock))
      check((await lastUsed(grant.id)) === clock.read(), 'issuing a code did not move lastUsedAt')
      check((await lastUsed(other.id)) === undefined, "another grant's lastUsedAt moved")
      clock.advance(60_000)
      await store.upsert(grantToken('RefreshToken', grant, clock))
      const refreshedAt = clock.read()
      check((await lastUsed(grant.id)) === refreshedAt, 'a refresh did not move lastUsedAt')
      clock.advance(1_000)
      await store.upsert({ ...grant, payload: { ...grant.payload, openid: { scope: 'openid profile' } } })
      const [summary] = (await store.list(accountId)).filter((each) => each.grantId === grant.id)
      check(time(summary?.createdAt) === createdAt, 'saving the grant again moved its createdAt')
      check(time(summary?.lastUsedAt) === refreshedAt, 'saving the grant again moved its lastUsedAt')
      check(summary?.scopes.includes('profile') === true, 'the grant was not replaced')
    },
  ),
]
