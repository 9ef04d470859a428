export type {
  Argon2idParameters,
  Argon2idPasswordHasher,
  Argon2idPasswordHasherOptions,
} from './argon2id-password-hasher.js'
export { argon2idPasswordHasher, OWASP_ARGON2ID_PARAMETERS } from './argon2id-password-hasher.js'
