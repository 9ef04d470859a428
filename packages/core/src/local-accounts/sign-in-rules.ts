import { AccountError, AccountErrorCodes } from '../accounts/errors.js'
import type { AccountStatus } from '../accounts/records.js'
import { invalidLocalInput } from './errors.js'
import type { LocalAuthProfile, LocalTransport } from './local-accounts-options.js'
import { defined, type LocalRuntime } from './runtime.js'

/** The transports a profile can establish. */
export function transportsOf(profile: LocalAuthProfile): readonly LocalTransport[] {
  return profile === 'hybrid' ? ['session', 'tokens'] : [profile === 'session' ? 'session' : 'tokens']
}

/** The transport of one sign-in: the one asked for (the hybrid profile must ask), if the profile has it. */
export function chooseTransport(
  profile: LocalAuthProfile,
  asked: LocalTransport | undefined,
): LocalTransport {
  if (asked !== undefined && asked !== 'session' && asked !== 'tokens') {
    throw invalidLocalInput('transport must be session or tokens')
  }
  if (asked === undefined) {
    if (profile === 'hybrid') throw invalidLocalInput('the hybrid profile needs an explicit transport')
    return profile === 'session' ? 'session' : 'tokens'
  }
  if (!transportsOf(profile).includes(asked)) {
    throw invalidLocalInput(`the ${profile} profile has no ${asked} transport`)
  }
  return asked
}

/** Disabled accounts do not sign in, whatever proved the identity (`account.disabled`, 403). */
export function refuseDisabled(
  runtime: LocalRuntime,
  account: { readonly accountId: string; readonly status: AccountStatus },
  clientAddress: string | undefined,
): void {
  if (account.status === 'active') return
  runtime.emit(
    'login.failed',
    defined({ reason: 'inactive_account', accountId: account.accountId, clientAddress }),
  )
  throw new AccountError(AccountErrorCodes.disabled, 'the account is disabled')
}
