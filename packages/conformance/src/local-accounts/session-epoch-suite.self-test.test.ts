import { type AccountStore, MemoryAccountStore } from '@portcullis/core/accounts'
import {
  MemorySessionStore,
  type SessionStore,
  type SessionWithAccountEpoch,
} from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../suite/suite.js'
import { sessionStoreSuite } from './index.js'

/** The memory session store with `getWithAccountEpoch` over a memory account store; `stale` keeps epoch 1. */
function joinedStore(accounts: AccountStore, stale: boolean): SessionStore {
  const sessions = new MemorySessionStore()
  return {
    create: (request) => sessions.create(request),
    get: (digest, now) => sessions.get(digest, now),
    touch: (request) => sessions.touch(request),
    list: (request) => sessions.list(request),
    revoke: (request) => sessions.revoke(request),
    async getWithAccountEpoch(digest, now): Promise<SessionWithAccountEpoch | null> {
      const session = await sessions.get(digest, now)
      if (session === null) return null
      const account = await accounts.getAccount(session.accountId)
      return { session, accountEpoch: account === null ? null : stale ? 1 : account.securityEpoch }
    },
  }
}

const failing = async (stale: boolean) => {
  const results = await runSuite(
    sessionStoreSuite(
      () => {
        const accounts = new MemoryAccountStore()
        return { store: joinedStore(accounts, stale), accounts }
      },
      { accountEpoch: true },
    ),
  )
  return results.filter((result) => !result.passed).map((result) => result.id)
}

describe('the accountEpoch cases of the SessionStore suite', () => {
  it('pass a store that joins the current epoch', async () => {
    expect(await failing(false)).toEqual([])
  })

  it('catch a store that answers an old epoch', async () => {
    expect(await failing(true)).toEqual(['session.account-epoch'])
  })

  it('catch a store without getWithAccountEpoch', async () => {
    const results = await runSuite(
      sessionStoreSuite(() => ({ store: new MemorySessionStore(), accounts: new MemoryAccountStore() }), {
        accountEpoch: true,
      }),
    )
    expect(results.filter((result) => !result.passed).map((result) => result.id)).toEqual([
      'session.account-epoch',
      'session.account-epoch-missing',
    ])
  })
})
