import {
  type AccountSearchHit,
  type AccountSearchQuery,
  type AccountStatus,
  accountSearchHit,
  validateAccountSearch,
} from '@portcullis/core/accounts'
import { type SQL, sql } from 'drizzle-orm'
import { inStatement } from '../client/transaction.js'
import type { LocalStoreContext } from '../local-accounts/client.js'
import {
  accountsTable as accounts,
  emailAddressesTable as emails,
  passwordsTable as passwords,
} from './tables.js'

// `PostgresAccountStore.searchAccounts`: one statement per search. Usernames and addresses are compared
// in code-point order (`COLLATE "C"`), which the expression indexes `portcullis_passwords_username_c_idx`
// and `portcullis_email_addresses_address_c_idx` serve for equality, for a prefix (one index range,
// `>= prefix and < next`) and for the order, so a prefix search reads at most `limit` index entries per
// table whatever their number, and plans so for any values.

interface HitRow extends Record<string, unknown> {
  account_id: string
  matched: 'id' | 'username' | 'email'
  address: string | null
  security_epoch: string | number
  status: AccountStatus
  created_at: Date | string
  updated_at: Date | string
  username: string | null
  primary_address: string | null
}

const C = sql.raw('collate "C"')

/**
 * The first string after every string that starts with `value`, in code-point order: `value` with its
 * last code point incremented (a last U+10FFFF is dropped and the one before incremented; the surrogate
 * range, which no text holds, is skipped). Null when nothing comes after (only U+10FFFF).
 */
export function prefixUpperBound(value: string): string | null {
  const points = [...value].map((character) => character.codePointAt(0) as number)
  while (points.length > 0) {
    const last = (points.pop() as number) + 1
    if (last <= 0x10ffff) {
      points.push(last === 0xd800 ? 0xe000 : last)
      return String.fromCodePoint(...points)
    }
  }
  return null
}

/** `column` (compared in code-point order) starts with `value`: one range of its "C" index. */
function startsWith(column: SQL, value: string): SQL {
  const upper = prefixUpperBound(value)
  return upper === null
    ? sql`${column} ${C} >= ${value}`
    : sql`${column} ${C} >= ${value} and ${column} ${C} < ${upper}`
}

/** The matches (account id, what matched, the matched address) of a validated search, ordered. */
function matches(by: AccountSearchQuery['by'], value: string, limit: number): SQL {
  const username = sql`select ${passwords.accountId} as account_id, 'username' as matched, null::text as address,
      ${passwords.username} ${C} as sort_text
    from ${passwords}`
  const address = sql`select ${emails.accountId} as account_id, 'email' as matched, ${emails.address} as address,
      ${emails.address} ${C} as sort_text
    from ${emails}`
  switch (by) {
    case 'id':
      return sql`select ${accounts.accountId} as account_id, 'id' as matched, null::text as address,
          ${accounts.accountId} ${C} as sort_text
        from ${accounts} where ${accounts.accountId} = ${value}`
    case 'username':
      return sql`${username} where ${passwords.username} = ${value}`
    case 'email':
      return sql`${address} where ${emails.address} ${C} = ${value}
        order by ${emails.address} ${C}, ${emails.accountId} limit ${limit}`
    case 'prefix':
      return sql`(${username} where ${startsWith(sql`${passwords.username}`, value)}
          order by ${passwords.username} ${C} limit ${limit})
        union all
        (${address} where ${startsWith(sql`${emails.address}`, value)}
          order by ${emails.address} ${C}, ${emails.accountId} limit ${limit})`
  }
}

export async function searchAccounts(
  context: LocalStoreContext,
  query: AccountSearchQuery,
): Promise<readonly AccountSearchHit[]> {
  const { by, value, limit } = validateAccountSearch(query)
  const result = await inStatement(() =>
    context.db.execute<HitRow>(sql`
      select m.account_id, m.matched, m.address,
        a.security_epoch, a.status, a.created_at, a.updated_at,
        p.username, e.address as primary_address
      from (${matches(by, value, limit)}) m
      join ${accounts} a on a.account_id = m.account_id
      left join ${passwords} p on p.account_id = m.account_id
      left join ${emails} e on e.account_id = m.account_id and e.is_primary
      order by m.sort_text, m.account_id ${C}
      limit ${limit}`),
  )
  return Object.freeze(
    result.rows.map((row) =>
      accountSearchHit({
        account: {
          accountId: row.account_id,
          securityEpoch: Number(row.security_epoch),
          status: row.status,
          createdAt: new Date(row.created_at),
          updatedAt: new Date(row.updated_at),
        },
        username: row.username,
        email: row.address ?? row.primary_address,
        matched: row.matched,
      }),
    ),
  )
}
