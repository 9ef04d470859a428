import type { PasswordHasher } from '@portcullis/core/local-accounts'

/**
 * For the examples that are tests only: a password "hash" without cost, so registering and signing in
 * stay fast. An application uses `argon2idPasswordHasher()` of @portcullis/argon2.
 */
export const plainHasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}
