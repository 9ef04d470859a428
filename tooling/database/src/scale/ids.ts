import { createHash } from 'node:crypto'

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex')
/** `length` hex digits derived from `text`, as `hex` in ./tables.ts computes them in SQL. */
const hex = (text: string, length: number): string =>
  (length <= 32 ? md5(text) : md5(text) + md5(`${text}~`)).slice(0, length)
const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

/**
 * The identifiers and digests the scale fixture stores for account number `i` (1-based), computed as the
 * fixture's SQL computes them: what a test passes to a store to read the fixture's rows back.
 */
export const scaleIds = Object.freeze({
  account: (i: number) => `account-${i}`,
  username: (i: number) => `user-${i}@scale.example`,
  /** Digest (hex SHA-256) of session `s` (1-3) of account `i`; session 3 of every hundredth account is idle-expired. */
  session: (i: number, s: 1 | 2 | 3) => hex(`session-${i}-${s}`, 64),
  /** The subject and provider-session tags session 1 of account `i` carries in its handle. */
  sessionTags: (i: number) => ({ subject: hex(`sub-${i}`, 11), session: hex(`sid-${i}`, 11) }),
  providerAccount: (i: number) => `provider-account-${i}`,
  identity: (i: number) => ({
    provider: 'scale-idp',
    issuer: 'https://idp.scale.example',
    subject: `sub-${i}`,
  }),
  apiKey: (i: number) => hex(`key-${i}`, 16),
  apiKeyDigest: (i: number) => new Uint8Array(sha256(`key-digest-${i}`)),
  refreshFamily: (i: number) => `family-${i}`,
  refreshToken: (i: number) => hex(`refresh-${i}`, 64),
  /** Accounts with a passkey, TOTP and recovery codes: `i % 10 === 0`. */
  passkey: (i: number) => hex(`credential-${i}`, 43),
  recoveryCode: (i: number, c: number) => `v1:${hex(`recovery-${i}-${c}`, 43)}`,
  /** Accounts with a live step-up credential: `i % 10 === 1`. */
  stepUp: (i: number) => hex(`step-up-${i}`, 43),
  stepUpSession: (i: number) => hex(`step-up-session-${i}`, 43),
  rateLimitKey: (i: number) => `password:user-${i}@scale.example`,
  /** Accounts with a pending passkey challenge: `i % 100 === 3`. */
  challenge: (i: number) => ({
    challengeDigest: hex(`challenge-${i}`, 43),
    bindingDigest: hex(`challenge-binding-${i}`, 43),
  }),
})
