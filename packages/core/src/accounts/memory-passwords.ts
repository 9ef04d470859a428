import type { AccountRow, MemoryAccountTables, PasswordRow } from './memory-tables.js'
import { type PasswordRecord, passwordRecord } from './records.js'
import {
  type AccountChangeRequest,
  type AddPasswordOutcome,
  type AddPasswordRequest,
  type FindPasswordQuery,
  type RemoveSignInMethodOutcome,
  type SetPasswordRequest,
  validateAccountChange,
  validateAddPassword,
  validateFindPassword,
  validateSetPassword,
} from './requests.js'

// The password sign-in method of `MemoryAccountStore`: lookup by username, verified address or account,
// change (with the expected-hash guard and the epoch move), addition and removal. Each change runs as one
// queued step over the shared tables.

/** A password row and its account as the record the port returns. */
export function passwordRecordOf(
  accountId: string,
  account: AccountRow,
  password: PasswordRow,
): PasswordRecord {
  return passwordRecord({
    accountId,
    username: password.username,
    passwordHash: password.passwordHash,
    securityEpoch: account.securityEpoch,
    status: account.status,
    createdAt: account.createdAt,
    updatedAt: password.updatedAt,
    passwordChangedAt: password.passwordChangedAt,
  })
}

export async function findPassword(
  tables: MemoryAccountTables,
  query: FindPasswordQuery,
): Promise<PasswordRecord | null> {
  const key = validateFindPassword(query)
  const accountId =
    'username' in key
      ? tables.byUsername.get(key.username)
      : 'verifiedEmail' in key
        ? tables.byVerifiedEmail.get(key.verifiedEmail)
        : key.accountId
  if (accountId === undefined) return null
  const account = tables.accounts.get(accountId)
  const password = tables.passwords.get(accountId)
  return account === undefined || password === undefined
    ? null
    : passwordRecordOf(accountId, account, password)
}

export async function setPassword(
  tables: MemoryAccountTables,
  request: SetPasswordRequest,
): Promise<PasswordRecord | null> {
  const change = validateSetPassword(request)
  return tables.queue.run(async () => {
    const writeOutbox = tables.stageOutbox(change.outbox)
    const account = tables.accounts.get(change.accountId)
    const password = tables.passwords.get(change.accountId)
    if (account === undefined || password === undefined) return null
    if (change.expectedPasswordHash !== undefined && password.passwordHash !== change.expectedPasswordHash) {
      return null
    }
    const updated: PasswordRow = {
      ...password,
      passwordHash: change.passwordHash,
      updatedAt: change.now,
      passwordChangedAt: change.rehash ? password.passwordChangedAt : change.now,
    }
    tables.passwords.set(change.accountId, updated)
    if (change.bumpEpoch) tables.bumpEpoch(change.accountId, change.now)
    writeOutbox()
    if (change.bumpEpoch) {
      await tables.announce(change.accountId)
    }
    return passwordRecordOf(change.accountId, tables.accounts.get(change.accountId) ?? account, updated)
  })
}

export async function addPassword(
  tables: MemoryAccountTables,
  request: AddPasswordRequest,
): Promise<AddPasswordOutcome> {
  const { accountId, username, passwordHash, now, outbox } = validateAddPassword(request)
  return tables.queue.run((): AddPasswordOutcome => {
    const writeOutbox = tables.stageOutbox(outbox)
    const account = tables.accounts.get(accountId)
    if (account === undefined) return { outcome: 'not-found' }
    if (tables.passwords.has(accountId)) return { outcome: 'password-exists' }
    if (tables.byUsername.has(username)) return { outcome: 'username-taken' }
    const password: PasswordRow = {
      username,
      passwordHash,
      createdAt: now,
      updatedAt: now,
      passwordChangedAt: now,
    }
    tables.passwords.set(accountId, password)
    tables.byUsername.set(username, accountId)
    writeOutbox()
    return { outcome: 'added', account: passwordRecordOf(accountId, account, password) }
  })
}

export async function removePassword(
  tables: MemoryAccountTables,
  request: AccountChangeRequest,
): Promise<RemoveSignInMethodOutcome> {
  const { accountId, now, outbox, securityLog } = validateAccountChange(request)
  return tables.queue.run(async (): Promise<RemoveSignInMethodOutcome> => {
    const writeOutbox = tables.stageOutbox(outbox)
    const writeLog = tables.stageSecurityLog(securityLog)
    const password = tables.passwords.get(accountId)
    if (!tables.accounts.has(accountId) || password === undefined) return { outcome: 'not-found' }
    if (tables.methodCount(accountId) <= 1) return { outcome: 'final-method' }
    tables.passwords.delete(accountId)
    tables.byUsername.delete(password.username)
    const securityEpoch = tables.bumpEpoch(accountId, now) ?? 1
    writeOutbox()
    writeLog()
    await tables.announce(accountId)
    return { outcome: 'removed', securityEpoch }
  })
}
