import type { Check } from '../suite/suite.js'
import type { Answer } from './http-client.js'

/** The answer may not be stored (`Cache-Control: no-store`). */
export function checkNoStore(check: Check, answer: Answer): void {
  check((answer.headers['cache-control'] ?? '').includes('no-store'), 'an answer without no-store')
}

/** An answer of the email flows: not stored, and no referrer leaves with its links (codes, flows). */
export function checkNoStoreNoReferrer(check: Check, answer: Answer): void {
  checkNoStore(check, answer)
  check(answer.headers['referrer-policy'] === 'no-referrer', 'an answer without Referrer-Policy: no-referrer')
}
