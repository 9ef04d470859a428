import type { EmailAddressNormalization } from '../accounts/email-address.js'
import type { SignInIdentifier } from '../accounts/email-requests.js'
import type { AccountStore } from '../accounts/port.js'
import type { CodeKeyRing } from '../codes/code-keys.js'
import { generateCode, generateFlowId } from '../codes/generate.js'
import type { CodeCandidate, CodePurpose, OneTimeCodeStore } from '../codes/port.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { MailMessage } from '../mail/messages.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { associatedData } from '../protection/associated-data.js'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '../protection/envelope-format.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type { AddressVerifiedListener } from './address-verified.js'
import type { SecurityNotifier } from './notifications.js'

// What the email-change and sign-in-code flows share: the stores, the code arithmetic (a fresh code,
// a flow handle, the digest and the candidates of a presented code under every key version), sealing
// of flow data and of messages, and links built from the configured public origin only.

export interface CodeArithmetic {
  /** A fresh code for a person to type. */
  code(): string
  /** A fresh flow handle (the link's `flow`). */
  flowId(): string
  /** The digest of a new code under the active key version. */
  digest(request: { readonly id: string; readonly purpose: CodePurpose; readonly code: string }): {
    readonly keyVersion: number
    readonly digest: string
  }
  /** One digest of a presented code per key version still held. */
  candidates(request: {
    readonly id: string
    readonly purpose: CodePurpose
    readonly code: string
  }): readonly CodeCandidate[]
}

export interface EmailFlowParts {
  readonly accounts: AccountStore
  readonly local: LocalAccounts
  readonly codes: OneTimeCodeStore
  readonly protector: OAuthTransactionProtector
  readonly notifier: SecurityNotifier
  readonly arithmetic: CodeArithmetic
  /** `https://app.example` (no path): every link starts with it, never with a request's `Host`. */
  readonly publicOrigin: string
  /** How the application signs people in (`LocalAccounts({ signInWith })`); default `['username']`. */
  readonly signInWith: readonly SignInIdentifier[]
  readonly emailNormalization: EmailAddressNormalization
  /** Milliseconds since the epoch. */
  readonly clock: () => number
  /** Seals a message into an outbox entry (`sealOutboxMessage`). */
  seal(message: MailMessage, accountId: string | null): Promise<OutboxEntry>
  /** The person's language for the templates. */
  locale(accountId: string | null): string | Promise<string>
  /** Told once an address is verified and committed (`tellAddressVerified`). */
  readonly addressVerified?: AddressVerifiedListener
}

/** A link to a page of the application that carries the flow handle and (in the fragment) the code. */
export function codeLink(origin: string, path: string, id: string, code: string): string {
  const url = new URL(path, origin)
  url.search = new URLSearchParams({ flow: id }).toString()
  url.hash = new URLSearchParams({ code }).toString()
  return url.toString()
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Flow data sealed into a code record's `payload`, bound to the record's purpose, id and account. */
export async function sealPayload(
  protector: OAuthTransactionProtector,
  bound: { readonly id: string; readonly purpose: CodePurpose; readonly accountId: string },
  data: Readonly<Record<string, string>>,
): Promise<string> {
  const envelope = await protector.protect(
    encoder.encode(JSON.stringify(data)),
    associatedData('portcullis.account-email.payload.v1', bound.purpose, bound.id, bound.accountId),
  )
  return serializeProtectedEnvelope(envelope)
}

/** Opens what `sealPayload` sealed; throws `protection.envelope_rejected` on any mismatch. */
export async function openPayload(
  protector: OAuthTransactionProtector,
  bound: { readonly id: string; readonly purpose: CodePurpose; readonly accountId: string },
  payload: string,
): Promise<Readonly<Record<string, string>>> {
  const plaintext = await protector.unprotect(
    parseProtectedEnvelope(payload),
    associatedData('portcullis.account-email.payload.v1', bound.purpose, bound.id, bound.accountId),
  )
  const data: unknown = JSON.parse(decoder.decode(plaintext))
  if (typeof data !== 'object' || data === null) return {}
  return data as Readonly<Record<string, string>>
}

/** The code arithmetic over a code key ring: codes of `length` characters from `alphabet`. */
export function codeArithmetic(
  ring: CodeKeyRing,
  options: { readonly length?: number; readonly alphabet?: string } = {},
): CodeArithmetic {
  return {
    code: () => generateCode(options),
    flowId: () => generateFlowId(),
    digest: (input) => ring.issueDigest(input),
    candidates: (input) => ring.candidates(input),
  }
}
