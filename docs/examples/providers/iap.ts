// Behind Google Cloud IAP: verify the signed `x-goog-iap-jwt-assertion` and map it to a local account.
// Unsigned headers such as `x-goog-authenticated-user-email` are never read.
import { CachedJWKSProvider, googleIap, type IapIdentity } from '@portcullis/core'

interface Account {
  readonly id: string
  readonly disabled: boolean
}
declare function findAccountByGoogleSubject(subject: string): Promise<Account | undefined>

const jwks = new CachedJWKSProvider()

// #region identity-aware-proxy-google-iap
export const iap = googleIap({
  // Exactly one audience: /projects/<number>/global/backendServices/<id> (or /projects/<number>/apps/<id>).
  audience: '/projects/123456789/global/backendServices/987654321',
  jwks,
  async resolveIdentity(claims): Promise<IapIdentity> {
    // A throw here is treated as "directory unavailable" (503).
    const account = await findAccountByGoogleSubject(claims.subject)
    if (account === undefined || account.disabled) return { kind: 'invalid', reason: 'no active account' }
    return {
      kind: 'principal',
      principal: { id: account.id, kind: 'user', displayName: claims.email ?? account.id },
    }
  },
})
// #endregion identity-aware-proxy-google-iap
