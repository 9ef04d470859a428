import { inspect } from 'node:util'
import type { OAuthServerEntry } from '@portcullis/core/authorization-server'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { afterAll, describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  PostgresOAuthServerStore,
  PostgresRevocationNotices,
  sweepExpired,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const NOW = Date.UTC(2031, 0, 1)
const HOUR = 3_600_000
const db = await migratedDatabase()
const listener = new PostgresRevocationNotices({ client: db.client, reconnectDelayMs: 20 })
const heard: RevocationNotice[] = []
listener.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
await listener.start()
afterAll(async () => {
  await listener.close()
  await db.close()
})

const accounts = new PostgresAccountStore({ client: db.client })
const store = new PostgresOAuthServerStore({ client: db.client, clock: () => NOW })
let sequence = 0

async function account(): Promise<string> {
  sequence += 1
  const accountId = `account-${sequence}-${Date.now()}`
  const created = await accounts.createAccount({
    accountId,
    username: `user.${sequence}.${Date.now()}`,
    passwordHash: '$argon2id$test',
    now: new Date(NOW),
  })
  if (created.outcome !== 'created') throw new Error(`setup: ${created.outcome}`)
  return accountId
}

function grant(accountId: string): OAuthServerEntry {
  sequence += 1
  const id = `grant-${sequence}-${Date.now()}`
  return { model: 'Grant', id, payload: { accountId, clientId: 'client-1' }, expiresAt: new Date(NOW + HOUR) }
}

function token(model: string, of: OAuthServerEntry, expiresAt = new Date(NOW + HOUR)): OAuthServerEntry {
  sequence += 1
  return { model, id: `${model}-${sequence}-${Date.now()}`, payload: { grantId: of.id }, expiresAt }
}

async function rowsOf(grantId: string): Promise<number> {
  const result = await db.client.pool.query<{ n: number }>(
    'select count(*)::int as n from portcullis_oauth_server_entries where grant_id = $1',
    [grantId],
  )
  return result.rows[0]?.n ?? -1
}

async function heardWithin(notice: RevocationNotice): Promise<boolean> {
  const deadline = Date.now() + 5_000
  const found = () => heard.some((each) => JSON.stringify(each) === JSON.stringify(notice))
  while (!found() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  return found()
}

describe('PostgresOAuthServerStore', () => {
  it('deleting an account deletes its grants and every entry of them in the same transaction, with a grant notice each', async () => {
    const leaving = await account()
    const staying = await account()
    const grants = [grant(leaving), grant(leaving)]
    const kept = grant(staying)
    for (const entry of [...grants, kept]) await store.upsert(entry)
    for (const entry of [...grants, kept]) {
      await store.upsert(token('AccessToken', entry))
      await store.upsert(token('RefreshToken', entry))
    }
    expect(await accounts.deleteAccount({ accountId: leaving, now: new Date(NOW) })).toEqual({
      outcome: 'deleted',
    })
    for (const entry of grants) {
      expect(await rowsOf(entry.id)).toBe(0)
      expect(await heardWithin({ kind: 'grant', grantId: entry.id })).toBe(true)
    }
    expect(await rowsOf(kept.id)).toBe(3)
    expect(await store.status(kept.id)).toEqual({
      grantId: kept.id,
      accountId: staying,
      clientId: 'client-1',
    })
  })

  it('consume: of 20 calls split over two instances (two pools) exactly one consumes', async () => {
    const other = new PostgresOAuthServerStore({ client: db.connect(8), clock: () => NOW })
    const code = token('AuthorizationCode', grant(await account()))
    await store.upsert(code)
    for (let round = 0; round < 3; round += 1) {
      const entry = { ...code, id: `${code.id}-${round}` }
      await store.upsert(entry)
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).consume(entry.model, entry.id)),
      )
      expect(outcomes.filter((outcome) => outcome === 'consumed')).toHaveLength(1)
      expect(outcomes.filter((outcome) => outcome === 'already-consumed')).toHaveLength(19)
    }
  })

  it('rotate: a replacement whose save fails in the database rolls the consumption back', async () => {
    const owner = grant(await account())
    await store.upsert(owner)
    const old = token('RefreshToken', owner)
    await store.upsert(old)
    const doomed = token('RefreshToken', owner)
    // The replacement's INSERT fails inside the transaction, after the UPDATE consumed the old token.
    await db.client.pool.query(`
      create function portcullis_test_refuse_save() returns trigger language plpgsql as $$
      begin
        if new.id = '${doomed.id}' then raise exception 'refused save'; end if;
        return new;
      end $$;
      create trigger portcullis_test_refuse_save before insert on portcullis_oauth_server_entries
        for each row execute function portcullis_test_refuse_save();`)
    try {
      await expect(store.rotate(old.model, old.id, doomed)).rejects.toMatchObject({
        code: 'postgres.unavailable',
      })
    } finally {
      await db.client.pool.query(`
        drop trigger portcullis_test_refuse_save on portcullis_oauth_server_entries;
        drop function portcullis_test_refuse_save();`)
    }
    expect((await store.find(old.model, { id: old.id }))?.consumedAt).toBeUndefined()
    expect(await store.find(doomed.model, { id: doomed.id })).toBeUndefined()
    const next = token('RefreshToken', owner)
    expect(await store.rotate(old.model, old.id, next)).toBe('consumed')
    expect((await store.find(old.model, { id: old.id }))?.consumedAt).toBeDefined()
    expect(await store.find(next.model, { id: next.id })).toBeDefined()
  })

  it('rotate: of 20 rotations split over two instances exactly one consumes and saves', async () => {
    const other = new PostgresOAuthServerStore({ client: db.connect(8), clock: () => NOW })
    const owner = grant(await account())
    await store.upsert(owner)
    const old = token('RefreshToken', owner)
    await store.upsert(old)
    const replacements = Array.from({ length: 20 }, () => token('RefreshToken', owner))
    const outcomes = await Promise.all(
      replacements.map((next, i) => (i % 2 === 0 ? store : other).rotate(old.model, old.id, next)),
    )
    expect(outcomes.filter((outcome) => outcome === 'consumed')).toHaveLength(1)
    expect(outcomes.filter((outcome) => outcome === 'already-consumed')).toHaveLength(19)
    const saved = await Promise.all(replacements.map((next) => store.find(next.model, { id: next.id })))
    expect(saved.filter((entry) => entry !== undefined)).toHaveLength(1)
    expect(saved[outcomes.indexOf('consumed')]).toBeDefined()
  })

  it('a revocation whose commit fails sends no notice and keeps every entry', async () => {
    const doomed = grant(await account())
    const fine = grant(await account())
    for (const entry of [doomed, fine]) {
      await store.upsert(entry)
      await store.upsert(token('RefreshToken', entry))
    }
    // A deferred constraint trigger fails the transaction at COMMIT, after the DELETE and the NOTIFY ran.
    await db.client.pool.query(`
      create function portcullis_test_refuse_revoke() returns trigger language plpgsql as $$
      begin
        if old.grant_id = '${doomed.id}' then raise exception 'refused at commit'; end if;
        return old;
      end $$;
      create constraint trigger portcullis_test_refuse_revoke after delete on portcullis_oauth_server_entries
        deferrable initially deferred for each row execute function portcullis_test_refuse_revoke();`)
    try {
      await expect(store.revokeGrant(doomed.id)).rejects.toThrow()
      expect(await rowsOf(doomed.id)).toBe(2)
      expect(await store.status(doomed.id)).toBeDefined()
      await store.revokeGrant(fine.id)
      // Notices arrive in commit order: once the later one is heard, the failed one was never sent.
      expect(await heardWithin({ kind: 'grant', grantId: fine.id })).toBe(true)
      expect(heard).not.toContainEqual({ kind: 'grant', grantId: doomed.id })
    } finally {
      await db.client.pool.query(`
        drop trigger portcullis_test_refuse_revoke on portcullis_oauth_server_entries;
        drop function portcullis_test_refuse_revoke();`)
    }
  })

  it('the sweep reclaims expired entries and keeps live ones and entries without expiry', async () => {
    const live = grant(await account())
    const expired = token('AccessToken', live, new Date(NOW - 1))
    const forever: OAuthServerEntry = {
      model: 'Client',
      id: `client-${Date.now()}`,
      payload: { client_id: 'c' },
      expiresAt: undefined,
    }
    for (const entry of [live, expired, forever]) await store.upsert(entry)
    const report = await sweepExpired(db.client, { now: new Date(NOW) })
    expect(report.deleted.portcullis_oauth_server_entries).toBeGreaterThanOrEqual(1)
    expect(await store.find('Grant', { id: live.id })).toBeDefined()
    expect(await store.find('Client', { id: forever.id })).toBeDefined()
    const left = await db.client.pool.query(
      'select 1 from portcullis_oauth_server_entries where model = $1 and id = $2',
      [expired.model, expired.id],
    )
    expect(left.rowCount).toBe(0)
  })

  it('refuses a foreign client or clock, and shows nothing of its connection when inspected', () => {
    expect(() => new PostgresOAuthServerStore({ client: {} as never })).toThrow(
      expect.objectContaining({ code: 'oauth_server.store_options' }),
    )
    expect(
      () => new PostgresOAuthServerStore({ client: db.client, clock: 'now' as unknown as () => number }),
    ).toThrow(expect.objectContaining({ code: 'oauth_server.store_options' }))
    expect(inspect(store)).toBe('PostgresOAuthServerStore {}')
    expect(inspect(store)).not.toContain(db.database.connectionString)
  })

  it('a clock that answers no time is a typed error, not a query', async () => {
    const bad = new PostgresOAuthServerStore({ client: db.client, clock: () => Number.NaN })
    await expect(bad.status('grant-x')).rejects.toMatchObject({ code: 'oauth_server.store_clock' })
  })
})
