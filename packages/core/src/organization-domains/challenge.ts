import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { invalidDomainInput } from './errors.js'

/** The label the challenge TXT record lives under: `_portcullis-challenge.example.com`. */
export const DOMAIN_CHALLENGE_LABEL = '_portcullis-challenge'
/** What the TXT record's text starts with; the claim's token follows. */
export const DOMAIN_CHALLENGE_PREFIX = 'portcullis-domain-verification='
/** TXT records read from one answer at most; a longer answer is read up to here. */
const MAX_RECORDS = 64
/** A record's text longer than this (in UTF-16 units) is not a challenge and is skipped. */
const MAX_RECORD_LENGTH = 1024
const LABEL_FORMAT = /^_[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** Where randomness comes from (injectable for tests); `node:crypto` `randomBytes` by default. */
export type DomainRandomSource = (size: number) => Uint8Array

/** 256 random bits, base64url (43 characters): the challenge token of a claim, or its handle (128 bits). */
export function generateDomainHandle(
  size: 16 | 32,
  randomBytes: DomainRandomSource = nodeRandomBytes,
): string {
  const bytes = randomBytes(size)
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== size) {
    throw invalidDomainInput('the random source must return the bytes asked for')
  }
  return Buffer.from(bytes).toString('base64url')
}

/** True for an underscore label (`_portcullis-challenge`): lower-case letters, digits and inner hyphens. */
export function isChallengeLabel(value: unknown): value is string {
  return typeof value === 'string' && LABEL_FORMAT.test(value)
}

/** The name the organization publishes its TXT record at. */
export function domainChallengeName(domain: string, label: string = DOMAIN_CHALLENGE_LABEL): string {
  return `${label}.${domain}`
}

/** The text of the TXT record that proves the claim with this token. */
export function domainChallengeValue(token: string): string {
  return `${DOMAIN_CHALLENGE_PREFIX}${token}`
}

/**
 * What the TXT records of the challenge name say about the token. `match`: one record is exactly the
 * challenge value (its pieces joined, surrounding white space ignored). `mismatch`: there are
 * verification records, none with this token (another claim's, another organization's). `missing`: none.
 */
export function readDomainChallenge(
  records: readonly (readonly string[])[],
  token: string,
): 'match' | 'mismatch' | 'missing' {
  const expected = domainChallengeValue(token)
  let seen = false
  for (const record of records.slice(0, MAX_RECORDS)) {
    if (!Array.isArray(record) || !record.every((piece) => typeof piece === 'string')) continue
    const text = record.join('')
    if (text.length > MAX_RECORD_LENGTH) continue
    const trimmed = text.trim()
    if (trimmed === expected) return 'match'
    if (trimmed.startsWith(DOMAIN_CHALLENGE_PREFIX)) seen = true
  }
  return seen ? 'mismatch' : 'missing'
}
