// The back-channel logout lookup at scale: with tens of thousands of sessions stored, the statement
// `PostgresSessionStore.revoke({ handleTags })` sends (captured from the wire, not retyped) is planned
// on the handle-tag indexes, never as a sequential scan of the sessions table.
import { createHash } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { PostgresSessionStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const ROWS = 30_000
const INDEXES = ['portcullis_sessions_handle_tag_1_idx', 'portcullis_sessions_handle_tag_2_idx']
const db = await migratedDatabase()
afterAll(() => db.close())

/** The tag the fill below computes in SQL: the first 11 base64url characters of SHA-256 of `value`. */
const tag = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 11)

beforeAll(async () => {
  // Every third session is a provider sign-in's (subject tag, then provider-session tag); the rest are not.
  await db.client.pool.query(
    `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
       idle_expires_at, absolute_expires_at)
     select md5('d' || i), case when i % 3 = 0
              then left(translate(encode(sha256(convert_to('sub' || (i / 3), 'UTF8')), 'base64'), '+/=', '-_'), 11)
                || left(translate(encode(sha256(convert_to('sid' || i, 'UTF8')), 'base64'), '+/=', '-_'), 11)
                || left(md5('h' || i), 22)
              else left(md5('h' || i), 22) end,
            'account-' || (i % 5000), 0, now(), now(), now() + interval '1 day', now() + interval '2 days'
       from generate_series(1, $1::int) as i`,
    [ROWS],
  )
  await db.client.pool.query('analyze portcullis_sessions')
}, 60_000)

interface PlanNode {
  readonly 'Node Type': string
  readonly 'Relation Name'?: string
  readonly 'Index Name'?: string
  readonly Plans?: readonly PlanNode[]
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]

/** Runs `revoke` and answers what it removed and the one DELETE it sent (text and parameters). */
async function captured(handleTags: readonly string[]) {
  const query = vi.spyOn(pg.Client.prototype, 'query')
  try {
    const removed = await new PostgresSessionStore({ client: db.client }).revoke({ handleTags })
    // drizzle sends `query(config, values)`; `config.values` when given wins, as in pg
    const deletes = query.mock.calls
      .map(([config, values]) =>
        typeof config === 'string'
          ? { text: config, values: values as unknown[] }
          : {
              text: (config as { text: string }).text,
              values: (config as { values?: unknown[] }).values ?? (values as unknown[]),
            },
      )
      .filter(({ text }) => /^delete from "portcullis_sessions"/i.test(text))
    expect(deletes).toHaveLength(1)
    return { removed, statement: deletes[0] as { text: string; values?: unknown[] } }
  } finally {
    query.mockRestore()
  }
}

describe('revoke({ handleTags }) with 3 x 10^4 sessions', () => {
  const k = 4_000 // session 3k carries sub(k) and sid(3k)
  it.each([
    ['subject and provider session', [tag(`sub${k}`), tag(`sid${3 * k}`)]],
    ['provider session only', [tag(`sid${3 * (k + 1)}`)]],
    ['subject only', [tag(`sub${k + 2}`)]],
  ])('by %s: ends exactly its session, with a plan on the handle-tag indexes', async (_name, tags) => {
    const { removed, statement } = await captured(tags)
    expect(removed).toBe(1)
    const explained = await db.client.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) ${statement.text}`,
      statement.values ?? [],
    )
    const plan = nodes((explained.rows[0]?.['QUERY PLAN'] ?? [])[0]?.Plan as PlanNode)
    const summary = plan.map(
      (node) => `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`,
    )
    const used = plan.flatMap((node) => node['Index Name'] ?? [])
    expect(used.length, JSON.stringify(summary)).toBeGreaterThan(0)
    expect(
      used.every((name) => INDEXES.includes(name)),
      JSON.stringify(summary),
    ).toBe(true)
    expect(
      plan.filter(
        (node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'portcullis_sessions',
      ),
      JSON.stringify(summary),
    ).toEqual([])
  })

  it('matches tags only in their slots, as providerSessionTags writes them', async () => {
    // A subject tag that appears later in a handle (its random part) names nothing.
    const subject = tag('sub-elsewhere')
    const store = new PostgresSessionStore({ client: db.client })
    await db.client.pool.query(
      `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
         idle_expires_at, absolute_expires_at)
       values ('elsewhere', $1, 'account-elsewhere', 0, now(), now(), now() + interval '1 day', now() + interval '2 days')`,
      [`${'x'.repeat(22)}${subject}${'y'.repeat(11)}`],
    )
    expect(await store.revoke({ handleTags: [subject] })).toBe(0)
  })
})
