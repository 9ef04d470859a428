import type { AccountSearchField } from '@portcullis/core/accounts'
import {
  ADMINISTRATION_EVENT_TYPES,
  type AdministrationEventType,
  requireAdministrationReason,
} from '@portcullis/core/administration'
import { SecurityLogEntries } from '@portcullis/core/security-log'
import { PostgresAccountStore } from '../accounts/store.js'
import type { PostgresClient } from '../client/postgres-client.js'

// `portcullis-postgres accounts ...`: account administration for operators without the web UI, straight
// on the database. Every change names the operator (`--actor`) and a reason (`--reason`) and is written
// to the security log like a change made through `AccountAdministration`; disabling and signing out move
// the security epoch and send the account's revocation notice, so every running instance refuses the
// account's credentials as soon as it hears it.

export const ACCOUNT_ACTIONS = ['search', 'show', 'disable', 'enable', 'sign-out', 'delete'] as const
const FIELDS: readonly AccountSearchField[] = ['id', 'username', 'email', 'prefix']
const ACTOR = /^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}$/

export interface AccountCommand {
  readonly operands: readonly string[]
  readonly reason?: string | undefined
  readonly actor?: string | undefined
  readonly limit?: number | undefined
}

/** A usage problem of an `accounts` command line, or undefined when it can run. */
export function accountsUsageProblem(command: AccountCommand): string | undefined {
  const [action, ...rest] = command.operands
  if (!(ACCOUNT_ACTIONS as readonly string[]).includes(action ?? '')) {
    return `accounts takes ${ACCOUNT_ACTIONS.join(', ')}`
  }
  if (action === 'search') {
    if (rest.length !== 2 || !FIELDS.includes(rest[0] as AccountSearchField)) {
      return 'accounts search takes <id|username|email|prefix> <value>'
    }
    return undefined
  }
  if (rest.length !== 1) return `accounts ${action} takes one account id`
  if (action === 'show') return undefined
  if (command.reason === undefined) return `accounts ${action} needs --reason`
  if (command.actor === undefined || !ACTOR.test(command.actor)) {
    return `accounts ${action} needs --actor (the operator's name: letters, digits, _ . @ : -)`
  }
  return undefined
}

const TYPES: Readonly<Record<string, AdministrationEventType>> = {
  disable: ADMINISTRATION_EVENT_TYPES.disabled,
  enable: ADMINISTRATION_EVENT_TYPES.enabled,
  'sign-out': ADMINISTRATION_EVENT_TYPES.signedOut,
  delete: ADMINISTRATION_EVENT_TYPES.deleted,
}

/** Runs an `accounts` command; the exit code (0 done, 5 no such account, 6 refused). */
export async function runAccounts(
  client: PostgresClient,
  command: AccountCommand,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const store = new PostgresAccountStore({ client })
  const [action, first = '', second = ''] = command.operands
  if (action === 'search') {
    const hits = await store.searchAccounts({
      by: first as AccountSearchField,
      value: second,
      ...(command.limit === undefined ? {} : { limit: command.limit }),
    })
    for (const hit of hits) {
      out(`${hit.account.accountId}\t${hit.account.status}\t${hit.username ?? '-'}\t${hit.email ?? '-'}`)
    }
    out(`${hits.length} found`)
    return 0
  }
  const accountId = first
  const before = await store.getAccount(accountId)
  if (before === null) {
    err(`no account ${JSON.stringify(accountId)}`)
    return 5
  }
  if (action === 'show') {
    const methods = await store.listSignInMethods(accountId)
    const emails = await store.listEmailAddresses(accountId)
    out(
      `account ${before.accountId} ${before.status} epoch ${before.securityEpoch} since ${before.createdAt.toISOString()}`,
    )
    for (const method of methods)
      out(`method  ${method.kind}${method.kind === 'identity' ? ` ${method.provider}` : ''}`)
    for (const email of emails)
      out(`email   ${email.address}${email.verified ? ' verified' : ''}${email.primary ? ' primary' : ''}`)
    return 0
  }
  const reason = requireAdministrationReason(command.reason)
  const now = new Date()
  // The audit entry is written in the change's transaction: no change without its record.
  const entry = new SecurityLogEntries().entryOf({
    type: TYPES[action as string] as AdministrationEventType,
    at: now,
    accountId,
    actorId: `cli:${command.actor}`,
    reason,
  })
  const securityLog = [entry]
  if (action === 'disable' || action === 'enable') {
    const after = await store.setAccountStatus({
      accountId,
      status: action === 'disable' ? 'disabled' : 'active',
      now,
      securityLog,
    })
    out(`${accountId} ${after?.status ?? 'gone'}; epoch ${after?.securityEpoch ?? '-'}`)
  } else if (action === 'sign-out') {
    const epoch = await store.bumpSecurityEpoch({ accountId, now, securityLog })
    out(`${accountId} signed out everywhere; epoch ${epoch ?? '-'}`)
  } else {
    const outcome = await store.deleteAccount({ accountId, now, securityLog })
    if (outcome.outcome !== 'deleted') {
      err(
        outcome.outcome === 'tokens-retained'
          ? `${accountId} still retains provider tokens: delete it through AccountAdministration (it stages their revocation)`
          : `${accountId} was not deleted (${outcome.outcome})`,
      )
      return 6
    }
    out(`${accountId} deleted`)
  }
  out(`audit ${entry.id}`)
  return 0
}
