import { LocalAccountError } from '../errors.js'

/** The most code points a normalized username may have. */
export const MAX_USERNAME_LENGTH = 64

/** Raw input longer than this (UTF-16 units) is refused before normalization, which can expand text. */
const MAX_RAW_LENGTH = 1024

/**
 * Refused inside a username: control (Cc), format (Cf: zero-width joiners, bidi overrides), surrogate
 * (Cs), private-use (Co) and unassigned (Cn) code points, and any separator or white space.
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Z}\s]/u

function refuse(message: string): never {
  throw new LocalAccountError('local.invalid_username', message)
}

/**
 * The canonical form a username is stored and looked up under: Unicode NFKC (full-width and compatibility
 * forms fold to their plain letters, composed and decomposed accents agree), white space trimmed, lower
 * case, then NFKC again so the result is stable (normalizing it twice changes nothing). Two inputs a user
 * would call the same name map to one string, so `Alice`, `ＡＬＩＣＥ` and ` alice ` are one account.
 *
 * Throws `LocalAccountError` `local.invalid_username` (class invalid-input) for a non-string, an empty
 * name, more than 64 code points, or control, format, unassigned or white-space characters inside. The
 * message never repeats the input.
 */
export function normalizeUsername(input: unknown): string {
  if (typeof input !== 'string') refuse('username must be a string')
  if (input.length > MAX_RAW_LENGTH) refuse(`username must be at most ${MAX_USERNAME_LENGTH} characters`)
  const normalized = input.normalize('NFKC').trim().toLowerCase().normalize('NFKC')
  if (normalized.length === 0) refuse('username must not be empty')
  if ([...normalized].length > MAX_USERNAME_LENGTH) {
    refuse(`username must be at most ${MAX_USERNAME_LENGTH} characters`)
  }
  if (FORBIDDEN.test(normalized)) {
    refuse('username must not contain control, format, unassigned or white-space characters')
  }
  return normalized
}
