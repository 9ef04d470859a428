import type { Impersonator } from '../authentication/principal.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'

/** What a listener is told: the account, and the address it now holds verified. */
export interface AddressVerifiedEvent {
  readonly accountId: string
  readonly address: string
}

/**
 * Told after an address of an account became verified and the change is committed: the sign-up's
 * verification, the verification of an added address, a completed email change (the new address).
 * `AutomaticInvitations` of `@portcullis/core/organization-domains` is one (its `addressVerified`).
 *
 * At least once or reported: the flow awaits it once and never fails or undoes the verification because
 * of it. A listener that throws is reported as the security event `email.address_verified_listener_failed`
 * (the account and, as `reason`, the error's stable `code`; never its message or the address). The flow
 * does not retry, and a process that ends between the commit and the call tells nobody, so a listener
 * should be safe to call again (`AutomaticInvitations` is: a pending invitation or a membership sends
 * nothing) and an application may call it again later, for example at sign-in. Telling a listener grants
 * nothing by itself: an invitation is still accepted by the person, signed in with the address verified.
 */
export interface AddressVerifiedListener {
  addressVerified(event: AddressVerifiedEvent): unknown
}

const CODE = /^[a-z][a-z0-9_.-]{0,63}$/

/** Tells the listener (if any) that the address is verified; a failure is reported, never thrown. */
export async function tellAddressVerified(
  parts: { readonly local: Pick<LocalAccounts, 'emit'>; readonly addressVerified?: AddressVerifiedListener },
  event: AddressVerifiedEvent,
  clientAddress: string | undefined,
  impersonator?: Impersonator,
): Promise<void> {
  const listener = parts.addressVerified
  if (listener === undefined) return
  try {
    await listener.addressVerified(Object.freeze({ accountId: event.accountId, address: event.address }))
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    parts.local.emit('email.address_verified_listener_failed', {
      accountId: event.accountId,
      reason: typeof code === 'string' && CODE.test(code) ? code : 'unknown',
      ...(clientAddress === undefined ? {} : { clientAddress }),
      ...(impersonator === undefined
        ? {}
        : { actorId: impersonator.accountId, impersonationId: impersonator.impersonationId }),
    })
  }
}
