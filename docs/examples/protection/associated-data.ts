// Sealing your own secret: the associated data names what the secret is and which record owns it, so
// the envelope cannot be replayed into another record or read back as something else.
import {
  associatedData,
  type OAuthTransactionProtector,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'

// #region associated-data
const purpose = 'my-app.webhook-signing-secret.v1'

export async function sealWebhookSecret(
  protector: OAuthTransactionProtector,
  tenantId: string,
  secret: string,
): Promise<string> {
  const envelope = await protector.protect(
    new TextEncoder().encode(secret),
    associatedData(purpose, tenantId),
  )
  // `pe1.<keyVersion>.<base64url>`: fits a text column and shows which key sealed it.
  return serializeProtectedEnvelope(envelope)
}
// #endregion associated-data

export async function openWebhookSecret(
  protector: OAuthTransactionProtector,
  tenantId: string,
  stored: string,
): Promise<string> {
  // Both steps throw ProtectedEnvelopeError (code `protection.envelope_rejected`) on any problem:
  // malformed text, unknown key version, tampering, another tenant's envelope, wrong key.
  const envelope = parseProtectedEnvelope(stored)
  const bytes = await protector.unprotect(envelope, associatedData(purpose, tenantId))
  return new TextDecoder().decode(bytes)
}
