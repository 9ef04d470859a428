import { randomBytes } from 'node:crypto'
import { challenge, passkey, at as passkeyTime } from '../passkeys/fixture.js'
import { digests, enable } from '../totp/fixture.js'
import type { AccountStoreFixture } from './fixture.js'

/** What `secondFactorData` gave an account: a TOTP enrollment, a passkey and a pending challenge. */
export interface SecondFactorData {
  readonly accountId: string
  readonly credentialId: string
  readonly challenge: { readonly challengeDigest: string; readonly bindingDigest: string }
}

/** Gives the account an enabled TOTP with recovery codes, a passkey and a pending step-up challenge, where the fixture has those stores. */
export async function secondFactorData(
  fixture: AccountStoreFixture,
  accountId: string,
): Promise<SecondFactorData> {
  if (fixture.totp !== undefined) await enable(fixture.totp, accountId, { codes: digests(3) })
  const credential = passkey({ accountId, credentialId: randomBytes(32).toString('base64url') })
  await fixture.passkeys?.addPasskey(credential)
  const pending = challenge({ accountId, ceremony: 'authentication', purpose: 'delete-account' })
  await fixture.passkeyChallenges?.createChallenge(pending)
  return {
    accountId,
    credentialId: credential.credentialId,
    challenge: { challengeDigest: pending.challengeDigest, bindingDigest: pending.bindingDigest },
  }
}

/** Which of the account's second-factor records are still there (undefined: the fixture lacks that store). */
export async function secondFactorDataPresent(
  fixture: AccountStoreFixture,
  data: SecondFactorData,
): Promise<Record<string, boolean | undefined>> {
  const { totp, passkeys, passkeyChallenges } = fixture
  return {
    'TOTP enrollment':
      totp === undefined ? undefined : (await totp.getTotpEnrollment(data.accountId)) !== null,
    'recovery codes': totp === undefined ? undefined : (await totp.countRecoveryCodes(data.accountId)) > 0,
    passkey: passkeys === undefined ? undefined : (await passkeys.findPasskey(data.credentialId)) !== null,
    'passkey challenge':
      passkeyChallenges === undefined
        ? undefined
        : (await passkeyChallenges.consumeChallenge(data.challenge, passkeyTime(1))) !== null,
  }
}
