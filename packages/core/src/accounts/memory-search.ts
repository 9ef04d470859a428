import {
  type AccountSearchHit,
  type AccountSearchQuery,
  accountSearchHit,
  compareSearchHits,
  validateAccountSearch,
} from './directory.js'
import type { MemoryAccountTables } from './memory-tables.js'

// `MemoryAccountStore.searchAccounts`: the same answers as the Postgres directory, by scanning the tables
// (memory is for tests and development: no index to keep).

function hitOf(
  tables: MemoryAccountTables,
  accountId: string,
  matched: AccountSearchHit['matched'],
  address?: string,
): AccountSearchHit | null {
  const account = tables.accounts.get(accountId)
  if (account === undefined) return null
  const primary = (tables.emails.get(accountId) ?? []).find((row) => row.primary)?.address ?? null
  return accountSearchHit({
    account: { accountId, ...account },
    username: tables.passwords.get(accountId)?.username ?? null,
    email: address ?? primary,
    matched,
  })
}

export function searchAccounts(
  tables: MemoryAccountTables,
  query: AccountSearchQuery,
): readonly AccountSearchHit[] {
  const { by, value, limit } = validateAccountSearch(query)
  const hits: AccountSearchHit[] = []
  const push = (hit: AccountSearchHit | null) => {
    if (hit !== null) hits.push(hit)
  }
  if (by === 'id') push(hitOf(tables, value, 'id'))
  if (by === 'username' || by === 'prefix') {
    for (const [accountId, password] of tables.passwords) {
      const match = by === 'username' ? password.username === value : password.username.startsWith(value)
      if (match) push(hitOf(tables, accountId, 'username'))
    }
  }
  if (by === 'email' || by === 'prefix') {
    for (const [accountId, rows] of tables.emails) {
      for (const row of rows) {
        const match = by === 'email' ? row.address === value : row.address.startsWith(value)
        if (match) push(hitOf(tables, accountId, 'email', row.address))
      }
    }
  }
  return Object.freeze(hits.sort(compareSearchHits).slice(0, limit))
}
