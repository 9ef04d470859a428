import { setImmediate as tick } from 'node:timers/promises'
import type { MemoryAccountData } from '@portcullis/core/accounts'
import { type Account, type AccountStore, MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import { MemoryRefreshTokenStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import type { accounts } from '@portcullis/core/oauth'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { MemoryTotpStore } from '@portcullis/core/totp'
import type { AccountStoreFixture } from '../../src/accounts/index.js'
import { realProtector } from './memory-fixtures.js'

/** Its passkeys count as methods, but it never learns the account's other methods, so removal never refuses. */
class BlindRemovalPasskeyStore extends MemoryPasskeyStore {
  override joinAccountTables(): void {}
}

/** A store that forwards every operation to a correct memory store; broken variants override some. */
function forwarding(inner: AccountStore): AccountStore {
  return {
    getAccount: (accountId) => inner.getAccount(accountId),
    listSignInMethods: (accountId) => inner.listSignInMethods(accountId),
    bumpSecurityEpoch: (request) => inner.bumpSecurityEpoch(request),
    setAccountStatus: (request) => inner.setAccountStatus(request),
    deleteAccount: (request) => inner.deleteAccount(request),
    createAccount: (request) => inner.createAccount(request),
    findPassword: (query) => inner.findPassword(query),
    setPassword: (request) => inner.setPassword(request),
    addPassword: (request) => inner.addPassword(request),
    removePassword: (request) => inner.removePassword(request),
    issueInvite: (request) => inner.issueInvite(request),
    oauth: (registration) => inner.oauth(registration),
    listEmailAddresses: (accountId) => inner.listEmailAddresses(accountId),
    findAccountByVerifiedEmail: (address) => inner.findAccountByVerifiedEmail(address),
    addEmailAddress: (request) => inner.addEmailAddress(request),
    verifyEmailAddress: (request) => inner.verifyEmailAddress(request),
    setPrimaryEmailAddress: (request) => inner.setPrimaryEmailAddress(request),
    removeEmailAddress: (request) => inner.removeEmailAddress(request),
  }
}

/** A provider view whose sign-in joins an account by the identity's verified email (what must never be). */
function linkingByEmail(inner: AccountStore, view: accounts.OAuthAccountStore): accounts.OAuthAccountStore {
  return new Proxy(view, {
    get(target, property) {
      if (property === 'login') {
        return async (request: Parameters<accounts.OAuthAccountStore['login']>[0]) => {
          const email = request.identity.emailVerified === true ? request.identity.email : undefined
          const owner = email === undefined ? null : await inner.findAccountByVerifiedEmail(email)
          if (owner === null) return target.login(request)
          const linked = await target.link({ ...request, accountId: owner.accountId })
          return { provisioned: false, link: linked.link, tokens: linked.tokens }
        }
      }
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function fixture(
  override: (
    inner: AccountStore,
    outbox: MemoryMailOutbox,
    codes: MemoryOneTimeCodeStore,
  ) => Partial<AccountStore> = () => ({}),
  options: {
    cascade?: boolean
    secondFactors?: boolean
    ownPeer?: boolean
    blindPasskeys?: boolean
    codes?: boolean
  } = {},
): () => AccountStoreFixture {
  return () => {
    const sessions = new MemorySessionStore()
    const refreshTokens = new MemoryRefreshTokenStore()
    const stepUp = new MemoryStepUpStore()
    const apiKeys = new MemoryApiKeyStore()
    const totp = new MemoryTotpStore()
    const passkeys =
      options.blindPasskeys === true ? new BlindRemovalPasskeyStore() : new MemoryPasskeyStore()
    const passkeyChallenges = new MemoryPasskeyChallengeStore()
    const cascade: MemoryAccountData[] = [
      ...(options.cascade === false ? [] : [sessions, refreshTokens, stepUp, apiKeys]),
      ...(options.secondFactors === false ? [] : [totp, passkeys, passkeyChallenges]),
    ]
    const outbox = new MemoryMailOutbox()
    const codes = new MemoryOneTimeCodeStore({ outbox })
    if (options.codes === true) cascade.push(codes)
    const inner = new MemoryAccountStore({ cascade, outbox })
    const store = { ...forwarding(inner), ...override(inner, outbox, codes) }
    const peer = options.ownPeer === true ? new MemoryAccountStore({ cascade }) : store
    const seconds = { totp, passkeys, passkeyChallenges }
    return {
      store,
      peer,
      protector: realProtector(),
      outbox,
      ...(options.codes === true ? { codes } : {}),
      sessions,
      refreshTokens,
      stepUp,
      apiKeys,
      ...seconds,
    }
  }
}

export interface BrokenAccountStore {
  readonly name: string
  readonly factory: () => AccountStoreFixture
  /** Cases that must report this breakage. */
  readonly caught: readonly string[]
}

export const correctAccountStore = fixture(undefined, { codes: true })

export const brokenAccountStores: readonly BrokenAccountStore[] = [
  {
    name: 'enqueues a password change’s messages before its compare-and-swap',
    factory: fixture((inner, outbox) => ({
      setPassword: async ({ outbox: entries, ...request }) => {
        await outbox.enqueue(entries ?? [])
        return inner.setPassword(request)
      },
    })),
    caught: ['accounts.outbox.iff-commit'],
  },
  {
    name: "issues a sign-up's code in a step of its own, whatever the sign-up's outcome",
    factory: fixture(
      (inner, _outbox, codes) => ({
        createAccount: async ({ code, ...request }) => {
          const outcome = await inner.createAccount(request)
          if (code !== undefined) await codes.issue({ code, supersede: false })
          return outcome
        },
      }),
      { codes: true },
    ),
    caught: ['accounts.sign-up.atomic'],
  },
  {
    name: 'drops the messages of an epoch bump',
    factory: fixture((inner) => ({
      bumpSecurityEpoch: ({ outbox: _dropped, ...request }) => inner.bumpSecurityEpoch(request),
    })),
    caught: ['accounts.outbox.iff-commit', 'accounts.outbox.bad-entries'],
  },
  {
    name: 'lists the password only',
    factory: fixture((inner) => ({
      listSignInMethods: async (accountId) =>
        (await inner.listSignInMethods(accountId)).filter((method) => method.kind === 'password'),
    })),
    caught: ['accounts.methods.count', 'accounts.methods.provider-first'],
  },
  {
    name: 'reports the last password removed',
    factory: fixture((inner) => ({
      removePassword: async (request) => {
        const outcome = await inner.removePassword(request)
        if (outcome.outcome !== 'final-method') return outcome
        return {
          outcome: 'removed',
          securityEpoch: (await inner.getAccount(request.accountId))?.securityEpoch ?? 1,
        }
      },
    })),
    caught: ['accounts.methods.last-method'],
  },
  {
    name: 'each instance keeps its own accounts',
    factory: fixture(undefined, { ownPeer: true }),
    caught: ['accounts.provisioning.concurrent'],
  },
  {
    name: 'deletion that forgets sessions, families, step-up credentials and API keys',
    factory: fixture(undefined, { cascade: false }),
    caught: ['accounts.deletion.everything'],
  },
  {
    name: 'deletion that forgets TOTP enrollments, recovery codes, passkeys and passkey challenges (and passkeys do not count)',
    factory: fixture(undefined, { secondFactors: false }),
    caught: ['accounts.deletion.everything', 'accounts.methods.passkey-counts'],
  },
  {
    name: 'passkeys count as methods but their removal never checks for the last one',
    factory: fixture(undefined, { blindPasskeys: true }),
    caught: ['accounts.methods.passkey-counts'],
  },
  {
    name: 'deletion that claims success while provider tokens are retained',
    factory: fixture((inner) => ({
      deleteAccount: async (request) => {
        const outcome = await inner.deleteAccount(request)
        return outcome.outcome === 'tokens-retained' ? { outcome: 'deleted' } : outcome
      },
    })),
    caught: ['accounts.deletion.everything'],
  },
  {
    name: 'a cached, stale security epoch',
    factory: fixture((inner) => {
      const seen = new Map<string, Account>()
      return {
        getAccount: async (accountId) => {
          const cached = seen.get(accountId)
          if (cached !== undefined) return cached
          const account = await inner.getAccount(accountId)
          if (account !== null) seen.set(accountId, account)
          return account
        },
      }
    }),
    caught: ['accounts.epoch.bumps'],
  },
  {
    name: 'addresses verified by check-then-set across an await (two accounts can both win)',
    factory: fixture((inner) => {
      // Its own address rows: the owner check and the claim are two steps with an await between.
      const rows = new Map<string, Map<string, Date | null>>()
      const owners = new Map<string, string>()
      const list = (accountId: string) => rows.get(accountId) ?? new Map<string, Date | null>()
      const record = (accountId: string, address: string, verifiedAt: Date | null, primary: boolean) => ({
        accountId,
        address,
        verified: verifiedAt !== null,
        primary,
        createdAt: new Date(0),
        verifiedAt,
      })
      return {
        addEmailAddress: async ({ accountId, address }) => {
          if ((await inner.getAccount(accountId)) === null) return { outcome: 'not-found' }
          const held = list(accountId)
          held.set(address, held.get(address) ?? null)
          rows.set(accountId, held)
          return { outcome: 'added', address: record(accountId, address, null, held.size === 1) }
        },
        verifyEmailAddress: async ({ accountId, address, now }) => {
          if (!list(accountId).has(address)) return { outcome: 'not-found' }
          const taken = owners.get(address)
          await tick()
          if (taken !== undefined && taken !== accountId) return { outcome: 'taken' }
          owners.set(address, accountId)
          list(accountId).set(address, now)
          return { outcome: 'verified', address: record(accountId, address, now, true), securityEpoch: 1 }
        },
        listEmailAddresses: async (accountId) =>
          [...list(accountId)].map(([address, verifiedAt], index) =>
            record(accountId, address, verifiedAt, index === 0),
          ),
        findAccountByVerifiedEmail: async (address) => {
          const owner = owners.get(address)
          return owner === undefined ? null : inner.getAccount(owner)
        },
      }
    }),
    caught: ['accounts.email.verify-race'],
  },
  {
    name: 'an unverified address finds its account',
    factory: fixture((inner) => {
      const added = new Map<string, string>()
      return {
        addEmailAddress: async (request) => {
          const outcome = await inner.addEmailAddress(request)
          if (outcome.outcome === 'added') added.set(request.address, request.accountId)
          return outcome
        },
        findAccountByVerifiedEmail: async (address) => {
          const owner = await inner.findAccountByVerifiedEmail(address)
          const holder = added.get(address)
          return owner ?? (holder === undefined ? null : inner.getAccount(holder))
        },
      }
    }),
    caught: ['accounts.email.add-verify'],
  },
  {
    name: 'a verification that answers verified when another account won',
    factory: fixture((inner) => ({
      verifyEmailAddress: async (request) => {
        const outcome = await inner.verifyEmailAddress(request)
        if (outcome.outcome !== 'taken') return outcome
        const [address] = await inner.listEmailAddresses(request.accountId)
        const securityEpoch = (await inner.getAccount(request.accountId))?.securityEpoch ?? 1
        return address === undefined ? outcome : { outcome: 'verified', address, securityEpoch }
      },
    })),
    caught: ['accounts.email.unverified-shared', 'accounts.email.verify-race'],
  },
  {
    name: 'address removal that never keeps the last way in',
    factory: fixture((inner) => ({
      removeEmailAddress: (request) => inner.removeEmailAddress({ ...request, signInWith: ['username'] }),
    })),
    caught: ['accounts.email.last-method'],
  },
  {
    name: 'a provider sign-in that links by verified email',
    factory: fixture((inner) => ({
      oauth: (registration) => linkingByEmail(inner, inner.oauth(registration)),
    })),
    caught: ['accounts.email.provider-never-links'],
  },
]
