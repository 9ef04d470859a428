import {
  type BlocklistPasswordScreenOptions,
  blocklistPasswordScreen,
  type PasswordScreen,
} from '@portcullis/core/local-accounts'
import { commonPasswords } from './common-passwords.js'

/** `blocklistPasswordScreen`'s options but the list: `words` and `minRemainingLength`. */
export type CommonPasswordScreenOptions = Omit<BlocklistPasswordScreenOptions, 'passwords'>

/**
 * The offline screen over the common passwords: `blocklistPasswordScreen({ ...options, passwords:
 * commonPasswords() })`. Refuses a listed password (after NFKC and lower-casing), one made of the
 * account's username or address, and a listed password around them; nothing leaves the process. The
 * list starts loading when the screen is made; the first screen waits for it.
 */
export function commonPasswordScreen(options: CommonPasswordScreenOptions = {}): PasswordScreen {
  const list = commonPasswords()
  // A failed load surfaces on the first screen, not as an unhandled rejection at startup.
  list.catch(() => undefined)
  return blocklistPasswordScreen({ ...options, passwords: list })
}
