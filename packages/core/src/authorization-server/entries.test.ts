import { describe, expect, it } from 'vitest'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import type { RevocationNotice } from '../revocation/notice.js'
import { checkedEntry, grantSummaryOf, indexOf, isEntryKey } from './entries.js'
import { MemoryOAuthServerStore } from './memory-store.js'
import type { OAuthServerEntry } from './port.js'

const entry = (fields: Partial<OAuthServerEntry>): OAuthServerEntry => ({
  model: 'Session',
  id: 'id-1',
  payload: {},
  expiresAt: undefined,
  ...fields,
})

describe('authorization server entries', () => {
  it('index a Grant by its own id, account and client; other models by grantId, uid and userCode', () => {
    expect(
      indexOf(entry({ model: 'Grant', id: 'g1', payload: { accountId: 'a', clientId: 'c', grantId: 'x' } })),
    ).toEqual({
      grantId: 'g1',
      uid: undefined,
      userCode: undefined,
      accountId: 'a',
      clientId: 'c',
    })
    expect(
      indexOf(
        entry({ payload: { grantId: 'g1', uid: 'u', userCode: 'U-1', accountId: 'a', clientId: 'c' } }),
      ),
    ).toEqual({ grantId: 'g1', uid: 'u', userCode: 'U-1', accountId: undefined, clientId: undefined })
    // Unindexable values are not indexed: too long, empty, not text, NUL.
    expect(indexOf(entry({ payload: { grantId: 'g'.repeat(256), uid: '', userCode: 7 } }))).toMatchObject({
      grantId: undefined,
      uid: undefined,
      userCode: undefined,
    })
    expect(indexOf(entry({ payload: { grantId: 'g\u0000' } })).grantId).toBeUndefined()
  })

  it('refuse what no store can keep, with oauth_server.invalid_entry', () => {
    const refused = [
      entry({ id: 'a\u0000' }),
      entry({ id: '\ud800' }),
      entry({ payload: { a: { b: ['\u0000'] } } }),
      entry({ payload: { '\udfff': 1 } }),
      entry({ payload: { big: 1n } }),
      entry({ model: 'Grant1' }),
    ]
    for (const candidate of refused) {
      expect(() => checkedEntry(candidate)).toThrow(
        expect.objectContaining({ code: 'oauth_server.invalid_entry' }),
      )
    }
    // A literal backslash-u text and a well-formed astral character are ordinary text.
    expect(checkedEntry(entry({ payload: { a: '\\u0000 𝔘 🔐' } }))).toBeDefined()
    expect(isEntryKey('🔐')).toBe(true)
    expect(isEntryKey('\ud83d')).toBe(false)
  })

  it('summarize a grant: the union of OIDC and resource scopes, resources, both sorted', () => {
    const summary = grantSummaryOf(
      entry({
        model: 'Grant',
        id: 'g1',
        payload: {
          accountId: 'a',
          clientId: 'c',
          openid: { scope: 'openid  email' },
          resources: { 'https://b.example/': 'write read', 'https://a.example/': 'read' },
        },
      }),
      new Date(1),
      undefined,
    )
    expect(summary).toEqual({
      grantId: 'g1',
      accountId: 'a',
      clientId: 'c',
      scopes: ['email', 'openid', 'read', 'write'],
      resources: ['https://a.example/', 'https://b.example/'],
      createdAt: new Date(1),
      lastUsedAt: undefined,
      expiresAt: undefined,
    })
  })
})

describe('MemoryOAuthServerStore', () => {
  const accounts = { getAccount: async () => null }

  it('finds a live entry by uid past an expired one with the same uid', async () => {
    let now = 1_000
    const store = new MemoryOAuthServerStore({ accounts, clock: () => now })
    await store.upsert(
      entry({ model: 'Interaction', id: 'old', payload: { uid: 'u' }, expiresAt: new Date(1_500) }),
    )
    await store.upsert(
      entry({ model: 'Interaction', id: 'new', payload: { uid: 'u' }, expiresAt: new Date(9_000) }),
    )
    now = 2_000
    expect((await store.find('Interaction', { uid: 'u' }))?.id).toBe('new')
  })

  it('finds nothing for a key without a usable field, rather than any entry', async () => {
    const store = new MemoryOAuthServerStore({ accounts })
    await store.upsert(entry({ model: 'Interaction', payload: {} }))
    expect(await store.find('Interaction', {} as never)).toBeUndefined()
    expect(await store.find('Interaction', { userCode: undefined } as never)).toBeUndefined()
    expect(await store.find('Interaction', null as never)).toBeUndefined()
  })

  it('refuses to revoke a malformed grant id, and notifies a well-formed one', async () => {
    const notices = new MemoryRevocationNotices()
    const heard: RevocationNotice[] = []
    notices.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
    const store = new MemoryOAuthServerStore({ accounts, notices })
    await expect(store.revokeGrant('')).rejects.toMatchObject({ code: 'oauth_server.invalid_entry' })
    await store.revokeGrant('g1')
    expect(heard).toEqual([{ kind: 'grant', grantId: 'g1' }])
  })
})
