import { LocalAuthError } from '../auth-errors.js'

/** Where a new password is being set: what the screen may weigh (a stricter rule at sign-up, say). */
export type PasswordScreenPurpose = 'sign-up' | 'change' | 'reset' | 'add'

/**
 * What a screen knows about the account besides the password (NIST SP 800-63B-4 §3.1.1.2 asks that
 * context-specific words, such as the username, be refused). Never logged, never sent anywhere.
 */
export interface PasswordScreenContext {
  readonly purpose: PasswordScreenPurpose
  /** The normalized username the password belongs to, when there is one. */
  readonly username?: string | undefined
  /** The account's email addresses, when it has any. */
  readonly addresses?: readonly string[] | undefined
}

/**
 * Why a password was refused: on a blocklist of common passwords, seen in a breach corpus (a range
 * service), or made of the account's own username or address.
 */
export type PasswordScreenReason = 'common' | 'breached' | 'context'

export type PasswordScreenVerdict =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reason: PasswordScreenReason }

/**
 * Port: screens a new password before it is hashed and stored (sign-up, change, reset, adding a
 * password). A refusal is a verdict, not an error; a screen that cannot decide (its service is down and
 * it is configured to fail closed) throws `local.password_screen_unavailable`. Implementations never log
 * or send the password, nor anything that identifies it.
 */
export interface PasswordScreen {
  screen(password: string, context: PasswordScreenContext): Promise<PasswordScreenVerdict>
}

/** The verdict that lets a password through. */
export const PASSWORD_ACCEPTED: PasswordScreenVerdict = Object.freeze({ accepted: true })

/**
 * The form a password is compared in: NFKC (so full-width and compatibility forms match their plain
 * letters) and lower case (so `PassWord` matches `password`).
 */
export function screeningForm(value: string): string {
  return value.normalize('NFKC').toLowerCase()
}

/** Words shorter than this are only refused as the whole password, not as a part of it. */
const MIN_CONTAINED_WORD = 3

/**
 * The password in screening form with every occurrence of the username, each address, each address's
 * local part and each of `extraWords` taken out (longest first; words under three code points only as
 * the whole password), and whether the password is exactly one of them.
 */
export function withoutContext(
  password: string,
  context: PasswordScreenContext,
  extraWords: readonly string[] = [],
): { readonly whole: boolean; readonly rest: string; readonly form: string } {
  const form = screeningForm(password)
  const words = new Set<string>()
  const add = (word: string | undefined) => {
    if (word === undefined) return
    const normal = screeningForm(word.trim())
    if (normal !== '') words.add(normal)
  }
  add(context.username)
  for (const address of context.addresses ?? []) {
    add(address)
    const at = address.lastIndexOf('@')
    if (at > 0) add(address.slice(0, at))
  }
  for (const word of extraWords) add(word)
  let rest = form
  for (const word of [...words].sort((left, right) => right.length - left.length)) {
    if (word === form) return { whole: true, rest: '', form }
    if ([...word].length >= MIN_CONTAINED_WORD) rest = rest.split(word).join('')
  }
  return { whole: false, rest, form }
}

/**
 * The context rule: the password, in screening form, must keep at least `minLength` code points once
 * the username, addresses and `extraWords` are taken out (`withoutContext`). So `alice`, `Alice2024!`
 * and `alice@example.org` are refused for `alice`, while a passphrase that merely mentions the name
 * (`alice rides a red bicycle`) stands.
 */
export function refusedByContext(
  password: string,
  context: PasswordScreenContext,
  minLength: number,
  extraWords: readonly string[] = [],
): boolean {
  const { whole, rest, form } = withoutContext(password, context, extraWords)
  if (whole) return true
  return rest !== form && [...rest].length < minLength
}

/**
 * Runs the configured screen on a new password and throws `local.password_screened` (400) when it is
 * refused. The error's message names the reason only, never the password. Every flow that sets a
 * password calls this after the input rules and before hashing.
 */
export async function screenNewPassword(
  screen: PasswordScreen,
  password: string,
  context: PasswordScreenContext,
): Promise<void> {
  const verdict = await screen.screen(password, context)
  if (verdict.accepted === true) return
  const reason: PasswordScreenReason = verdict.reason
  throw new LocalAuthError(
    'local.password_screened',
    reason === 'context'
      ? 'the new password is made of the account name or address'
      : reason === 'breached'
        ? 'the new password appears in known breaches'
        : 'the new password is too common',
    { detail: 'Choose a password that is not common, breached or made of the account name.' },
  )
}
