import type { OAuthTransactionProtector, ProtectedEnvelope } from '@portcullis/core/protection'
import { associatedData } from '@portcullis/core/protection'
import { conformanceCase } from '../suite/suite.js'
import { hex, utf8 } from './expectations.js'

/**
 * What a protector factory yields: a fresh protector and two companions that let the suite exercise
 * rotation and key separation without knowing how keys are configured.
 */
export interface OAuthTransactionProtectorSubject {
  /** The protector under test, with an active key and at least one retained key. */
  readonly protector: OAuthTransactionProtector
  /** The same implementation as configured before the last rotation: its active key is one `protector` retains. */
  readonly previous: OAuthTransactionProtector
  /** An instance whose active key has the same version label as `protector`'s but other key material. */
  readonly impostor: OAuthTransactionProtector
  dispose?(): Promise<void> | void
}

export type OAuthTransactionProtectorFactory = () =>
  | OAuthTransactionProtectorSubject
  | Promise<OAuthTransactionProtectorSubject>

export type Subject = OAuthTransactionProtectorSubject

export const SECRET = 'conformance-secret-value'
export const AAD = associatedData('conformance.protector', 'transaction=a', 'purpose=pkce')
export const case_ = conformanceCase<Subject>

export async function seal(subject: Subject, secret = SECRET): Promise<ProtectedEnvelope> {
  return subject.protector.protect(utf8(secret), AAD)
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && hex(a) === hex(b)
}

export function withCiphertext(envelope: ProtectedEnvelope, ciphertext: Uint8Array): ProtectedEnvelope {
  return { keyVersion: envelope.keyVersion, ciphertext }
}
