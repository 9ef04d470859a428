import { createHash, randomBytes } from 'node:crypto'
import { at, digest, expectCode, HOUR, handle, passwordHash, T0, unique } from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  type AccountStoreFixture,
  GRANT,
  identityOf,
  passwordAccount,
  providerTokens,
  providerView,
} from './fixture.js'
import { secondFactorData, secondFactorDataPresent } from './second-factor-data.js'

type Case = ConformanceCase<AccountStoreFixture>

/** Gives the account a session, a refresh-token family, a step-up credential and an API key, where the fixture has those stores. */
async function companions(fixture: AccountStoreFixture, accountId: string) {
  const session = digest()
  const refresh = digest()
  const stepUp = createHash('sha256').update(randomBytes(32)).digest('base64url')
  const keyId = randomBytes(12).toString('base64url')
  await fixture.sessions?.create({
    session: {
      digest: session,
      handle: handle(),
      accountId,
      securityEpoch: 1,
      createdAt: T0,
      lastSeenAt: T0,
      idleExpiresAt: at(HOUR),
      absoluteExpiresAt: at(2 * HOUR),
    },
  })
  await fixture.refreshTokens?.createFamily({
    familyId: unique('family'),
    accountId,
    securityEpoch: 1,
    createdAt: T0,
    absoluteExpiresAt: at(2 * HOUR),
    token: { digest: refresh, expiresAt: at(HOUR) },
  })
  await fixture.stepUp?.save({
    digest: stepUp,
    accountId,
    purpose: 'delete-account',
    securityEpoch: 1,
    sessionDigest: createHash('sha256').update(session).digest('base64url'),
    issuedAt: T0,
    authenticatedAt: T0,
    expiresAt: at(5 * 60_000),
  })
  await fixture.apiKeys?.create({
    keyId,
    ownerId: accountId,
    ownerKind: 'user',
    digest: randomBytes(32),
    pepperVersion: 'v1',
    restrictions: {},
    createdAt: T0,
  })
  return { session, refresh, stepUp, keyId }
}

export const deletionCases: readonly Case[] = [
  conformanceCase(
    'accounts.deletion.everything',
    'deleting an account removes it, its methods, sessions, refresh families, step-up credentials, API keys, vault rows, TOTP, recovery codes, passkeys and passkey challenges; staged revocations stay',
    async (fixture, check) => {
      const { store } = fixture
      const view = providerView(fixture)
      const { accountId, username } = await passwordAccount(store)
      const person = identityOf(view)
      const linked = await view.link({
        accountId,
        identity: person,
        grant: GRANT,
        tokens: providerTokens(),
        now: T0,
      })
      const other = await passwordAccount(store)
      const kept = await companions(fixture, other.accountId)
      const held = await companions(fixture, accountId)
      const keptFactors = await secondFactorData(fixture, other.accountId)
      const heldFactors = await secondFactorData(fixture, accountId)

      const refused = await store.deleteAccount({ accountId, now: T0 })
      check(
        refused.outcome === 'tokens-retained' &&
          refused.providerAccountIds.includes(linked.link.providerAccountId),
        `deleting an account that retains provider tokens answered ${refused.outcome}`,
      )
      check((await store.getAccount(accountId)) !== null, 'a refused deletion removed the account')
      const stored = await view.getTokens(linked.link.providerAccountId)
      const staged =
        stored === null
          ? null
          : await view.stageRevocationRetry({
              providerAccountId: linked.link.providerAccountId,
              expectedVersion: stored.reference.version,
              tokens: stored.tokens,
              failedTokenTypes: ['refresh_token', 'access_token'],
              occurredAt: T0,
            })
      check(staged !== null, 'the retained tokens could not be staged for revocation')

      const deleted = await store.deleteAccount({ accountId, now: T0 })
      check(deleted.outcome === 'deleted', `deleting the account answered ${deleted.outcome}`)
      check((await store.getAccount(accountId)) === null, 'the deleted account is still found')
      check((await store.listSignInMethods(accountId)).length === 0, 'the deleted account kept methods')
      check((await store.findPassword({ username })) === null, 'the deleted password still signs in')
      check((await view.resolveLink({ accountId, provider: view.provider })) === null, 'the link survived')
      check((await view.getTokens(linked.link.providerAccountId)) === null, 'the vault row survived')
      const retries = await view.claimRevocationRetries({ now: at(1), leaseSeconds: 60, limit: 100 })
      check(
        retries.some((retry) => retry.providerAccountId === linked.link.providerAccountId),
        'the staged revocation was deleted with the account',
      )
      await expectCode(
        check,
        view.login({ identity: person, grant: GRANT, provisionUnknown: false, now: T0 }),
        'oauth.account.unknown_identity',
        'a sign-in with the deleted identity',
      )
      const reused = await store.createAccount({
        accountId: unique('account'),
        username,
        passwordHash: passwordHash(),
        now: T0,
      })
      check(reused.outcome === 'created', 'the deleted username is not free again')

      const live = async (data: typeof held) => ({
        session:
          fixture.sessions === undefined
            ? undefined
            : (await fixture.sessions.get(data.session, at(1))) !== null,
        refresh:
          fixture.refreshTokens === undefined
            ? undefined
            : (
                await fixture.refreshTokens.rotate({
                  presentedDigest: data.refresh,
                  next: { digest: digest(), expiresAt: at(HOUR) },
                  now: at(1),
                })
              ).outcome === 'rotated',
        stepUp: fixture.stepUp === undefined ? undefined : (await fixture.stepUp.take(data.stepUp)) !== null,
        apiKey:
          fixture.apiKeys === undefined ? undefined : (await fixture.apiKeys.get(data.keyId)) !== undefined,
      })
      const gone = { ...(await live(held)), ...(await secondFactorDataPresent(fixture, heldFactors)) }
      for (const [what, present] of Object.entries(gone)) {
        check(present !== true, `the deleted account's ${what} survived`)
      }
      const others = { ...(await live(kept)), ...(await secondFactorDataPresent(fixture, keptFactors)) }
      for (const [what, present] of Object.entries(others)) {
        check(present !== false, `deleting one account removed another account's ${what}`)
      }
      const again = await store.deleteAccount({ accountId, now: T0 })
      check(again.outcome === 'not-found', `deleting twice answered ${again.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.deletion.concurrent',
    'two concurrent deletions of one account (on two instances): one deleted, one not-found',
    async (fixture, check) => {
      const { accountId } = await passwordAccount(fixture.store)
      const peer = fixture.peer ?? fixture.store
      const outcomes = await Promise.all([
        fixture.store.deleteAccount({ accountId, now: T0 }),
        peer.deleteAccount({ accountId, now: T0 }),
      ])
      const names = outcomes.map((outcome) => outcome.outcome).sort()
      check(names.join() === 'deleted,not-found', `concurrent deletions answered ${names.join()}`)
    },
  ),
]
