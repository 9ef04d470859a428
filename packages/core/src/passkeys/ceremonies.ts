import type { PasskeyCeremonyStart } from './ceremony-start.js'
import type { PasskeyCredential } from './records.js'

/** A step-up ceremony: who steps up, from which session, for what. */
export interface PasskeyStepUpBinding {
  readonly accountId: string
  /** A stable value of the caller's session (the same one its step-up credentials are bound to). */
  readonly sessionBinding: string
  readonly purpose: string
}

/** The outcome of a verified assertion. */
export interface PasskeyAssertion {
  readonly accountId: string
  readonly credentialId: string
  readonly ceremony: 'sign_in' | 'step_up'
  /** When the user proved presence and verification (now). */
  readonly authenticatedAt: Date
}

export interface BeginPasskeyRegistration {
  readonly accountId: string
  readonly userName: string
  readonly displayName?: string
  readonly sessionBinding: string
  readonly browserBinding?: string | undefined
}

export interface FinishPasskeyRegistration {
  readonly accountId: string
  readonly sessionBinding: string
  readonly browserBinding: string | undefined
  /** The browser's `RegistrationResponseJSON`, unchecked. */
  readonly response: unknown
  readonly name?: string
}

export interface BeginPasskeyAuthentication {
  readonly browserBinding?: string | undefined
  /** Absent: a sign-in with discoverable credentials. Present: a step-up of this account and session. */
  readonly stepUp?: PasskeyStepUpBinding
}

export interface FinishPasskeyAuthentication {
  readonly browserBinding: string | undefined
  /** The browser's `AuthenticationResponseJSON`, unchecked. */
  readonly response: unknown
  readonly stepUp?: PasskeyStepUpBinding
  readonly clientAddress?: string | undefined
}

/**
 * The WebAuthn ceremonies as the HTTP layer and `PasskeyStepUp` use them. `PasskeyService` from
 * `@portcullis/passkeys` implements it (with `@simplewebauthn/server`); core only depends on this shape.
 * Options are the JSON for `navigator.credentials.create()` / `.get()`.
 */
export interface PasskeyCeremonies {
  readonly challengeTtlSeconds: number
  beginRegistration(request: BeginPasskeyRegistration): Promise<PasskeyCeremonyStart>
  finishRegistration(request: FinishPasskeyRegistration): Promise<PasskeyCredential>
  beginAuthentication(request?: BeginPasskeyAuthentication): Promise<PasskeyCeremonyStart>
  finishAuthentication(request: FinishPasskeyAuthentication): Promise<PasskeyAssertion>
  list(accountId: string): Promise<readonly PasskeyCredential[]>
  rename(request: {
    readonly accountId: string
    readonly credentialId: string
    readonly name: string
  }): Promise<boolean>
  /** False when the account has no such passkey; `account.final_method` (409) for its last way to sign in. */
  remove(request: { readonly accountId: string; readonly credentialId: string }): Promise<boolean>
}
