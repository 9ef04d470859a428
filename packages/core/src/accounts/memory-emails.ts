import {
  type AddEmailAddressOutcome,
  type EmailAddress,
  emailAddressList,
  emailAddressRecord,
  MAX_EMAIL_ADDRESSES_PER_ACCOUNT,
  type RemoveEmailAddressOutcome,
  removalLeavesNoWayIn,
  requireNormalizedEmailAddress,
  type SetPrimaryEmailAddressOutcome,
  type VerifyEmailAddressOutcome,
  validateEmailAddressRequest,
  validateRemoveEmailAddress,
  validateVerifyEmailAddress,
} from './email-requests.js'
import type { EmailRow, MemoryAccountTables } from './memory-tables.js'
import { type Account, accountRecord } from './records.js'
import { validateAccountId } from './requests.js'

// The email-address operations of `MemoryAccountStore`. Each runs as one queued step that decides and
// commits synchronously, so the check that a verified address is free and the claim of it are one
// instant: of two accounts verifying one address at once, exactly one wins.

const toRecord = (accountId: string, row: EmailRow): EmailAddress =>
  emailAddressRecord({
    accountId,
    address: row.address,
    verified: row.verifiedAt !== null,
    primary: row.primary,
    createdAt: row.createdAt,
    verifiedAt: row.verifiedAt,
  })

function rowsOf(tables: MemoryAccountTables, accountId: string): EmailRow[] {
  return tables.emails.get(accountId) ?? []
}

export function listEmailAddresses(tables: MemoryAccountTables, accountId: string): readonly EmailAddress[] {
  const id = validateAccountId(accountId)
  return emailAddressList(rowsOf(tables, id).map((row) => toRecord(id, row)))
}

export function findAccountByVerifiedEmail(tables: MemoryAccountTables, address: string): Account | null {
  const accountId = tables.byVerifiedEmail.get(requireNormalizedEmailAddress(address))
  const account = accountId === undefined ? undefined : tables.accounts.get(accountId)
  return accountId === undefined || account === undefined ? null : accountRecord({ accountId, ...account })
}

export function addEmailAddress(
  tables: MemoryAccountTables,
  request: unknown,
): Promise<AddEmailAddressOutcome> {
  const { accountId, address, now, outbox } = validateEmailAddressRequest(request)
  return tables.queue.run((): AddEmailAddressOutcome => {
    const writeOutbox = tables.stageOutbox(outbox)
    if (!tables.accounts.has(accountId)) return { outcome: 'not-found' }
    const rows = rowsOf(tables, accountId)
    const existing = rows.find((row) => row.address === address)
    if (existing !== undefined) return { outcome: 'exists', address: toRecord(accountId, existing) }
    const owner = tables.byVerifiedEmail.get(address)
    if (owner !== undefined) return { outcome: 'verified-elsewhere' }
    if (rows.length >= MAX_EMAIL_ADDRESSES_PER_ACCOUNT) return { outcome: 'too-many' }
    const row: EmailRow = { address, verifiedAt: null, primary: rows.length === 0, createdAt: now }
    tables.emails.set(accountId, [...rows, row])
    writeOutbox()
    return { outcome: 'added', address: toRecord(accountId, row) }
  })
}

/** Replaces the account's rows with `primary` set on `address` only; true when the primary changed. */
function makePrimary(tables: MemoryAccountTables, accountId: string, address: string): boolean {
  const rows = rowsOf(tables, accountId)
  if (rows.find((row) => row.primary)?.address === address) return false
  tables.emails.set(
    accountId,
    rows.map((row) => ({ ...row, primary: row.address === address })),
  )
  return true
}

function epochOf(tables: MemoryAccountTables, accountId: string): number {
  return tables.accounts.get(accountId)?.securityEpoch ?? 1
}

export function verifyEmailAddress(
  tables: MemoryAccountTables,
  request: unknown,
): Promise<VerifyEmailAddressOutcome> {
  const { accountId, address, now, makePrimary: primary, outbox } = validateVerifyEmailAddress(request)
  return tables.queue.run(async (): Promise<VerifyEmailAddressOutcome> => {
    const writeOutbox = tables.stageOutbox(outbox)
    if (!tables.accounts.has(accountId)) return { outcome: 'not-found' }
    const rows = rowsOf(tables, accountId)
    const row = rows.find((each) => each.address === address)
    if (row === undefined) return { outcome: 'not-found' }
    const owner = tables.byVerifiedEmail.get(address)
    if (owner !== undefined && owner !== accountId) return { outcome: 'taken' }
    if (row.verifiedAt === null) {
      tables.byVerifiedEmail.set(address, accountId)
      tables.emails.set(
        accountId,
        rows.map((each) => (each === row ? { ...each, verifiedAt: now } : each)),
      )
    }
    let securityEpoch = epochOf(tables, accountId)
    const primaryMoved = primary && makePrimary(tables, accountId, address)
    if (primaryMoved) securityEpoch = tables.bumpEpoch(accountId, now) ?? securityEpoch
    writeOutbox()
    if (primaryMoved) await tables.announce(accountId)
    const stored = rowsOf(tables, accountId).find((each) => each.address === address) ?? row
    return { outcome: 'verified', address: toRecord(accountId, stored), securityEpoch }
  })
}

export function setPrimaryEmailAddress(
  tables: MemoryAccountTables,
  request: unknown,
): Promise<SetPrimaryEmailAddressOutcome> {
  const { accountId, address, now, outbox } = validateEmailAddressRequest(request)
  return tables.queue.run(async (): Promise<SetPrimaryEmailAddressOutcome> => {
    const writeOutbox = tables.stageOutbox(outbox)
    const row = rowsOf(tables, accountId).find((each) => each.address === address)
    if (!tables.accounts.has(accountId) || row === undefined) return { outcome: 'not-found' }
    if (row.verifiedAt === null) return { outcome: 'unverified' }
    if (!makePrimary(tables, accountId, address)) {
      writeOutbox()
      return { outcome: 'set', securityEpoch: epochOf(tables, accountId) }
    }
    const securityEpoch = tables.bumpEpoch(accountId, now) ?? 1
    writeOutbox()
    await tables.announce(accountId)
    return { outcome: 'set', securityEpoch }
  })
}

export function removeEmailAddress(
  tables: MemoryAccountTables,
  request: unknown,
): Promise<RemoveEmailAddressOutcome> {
  const { accountId, address, now, signInWith, outbox } = validateRemoveEmailAddress(request)
  return tables.queue.run(async (): Promise<RemoveEmailAddressOutcome> => {
    const writeOutbox = tables.stageOutbox(outbox)
    const rows = rowsOf(tables, accountId)
    const row = rows.find((each) => each.address === address)
    if (!tables.accounts.has(accountId) || row === undefined) return { outcome: 'not-found' }
    if (row.primary && rows.length > 1) return { outcome: 'primary' }
    const hasPassword = tables.passwords.has(accountId)
    const counts = {
      others: tables.methodCount(accountId) - (hasPassword ? 1 : 0),
      hasPassword,
      verifiedBefore: rows.filter((each) => each.verifiedAt !== null).length,
    }
    const verified = row.verifiedAt !== null
    if (removalLeavesNoWayIn(signInWith, counts, verified)) return { outcome: 'final-method' }
    const rest = rows.filter((each) => each !== row)
    if (rest.length === 0) tables.emails.delete(accountId)
    else tables.emails.set(accountId, rest)
    if (!verified) {
      writeOutbox()
      return { outcome: 'removed', securityEpoch: epochOf(tables, accountId) }
    }
    tables.byVerifiedEmail.delete(address)
    const securityEpoch = tables.bumpEpoch(accountId, now) ?? 1
    writeOutbox()
    await tables.announce(accountId)
    return { outcome: 'removed', securityEpoch }
  })
}

/** Drops every address of the account (in `deleteAccount`'s step). */
export function deleteEmailAddresses(tables: MemoryAccountTables, accountId: string): void {
  for (const row of rowsOf(tables, accountId)) {
    if (row.verifiedAt !== null && tables.byVerifiedEmail.get(row.address) === accountId) {
      tables.byVerifiedEmail.delete(row.address)
    }
  }
  tables.emails.delete(accountId)
}
