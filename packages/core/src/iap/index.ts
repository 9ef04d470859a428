export type { GoogleIapOptions, IapIdentity } from './google-iap-mechanism.js'
export {
  GOOGLE_IAP_HEADER,
  GOOGLE_IAP_ISSUER,
  GOOGLE_IAP_JWKS_URI,
  googleIap,
} from './google-iap-mechanism.js'
export type { GoogleIapClaims, GoogleIapExternalIdentity } from './iap-claims.js'
