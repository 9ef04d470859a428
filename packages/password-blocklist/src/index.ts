export type { CommonPasswordScreenOptions } from './common-password-screen.js'
export { commonPasswordScreen } from './common-password-screen.js'
export { COMMON_PASSWORDS_SOURCE, commonPasswords } from './common-passwords.js'
