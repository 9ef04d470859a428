import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, pgTable, text } from 'drizzle-orm/pg-core'
import { bytea, instant } from '../columns/columns.js'

/** Registered passkeys: a sign-in method of their account each, keyed by WebAuthn credential id. */
export const passkeysTable = pgTable(
  'portcullis_passkeys',
  {
    credentialId: text('credential_id').primaryKey(),
    accountId: text('account_id').notNull(),
    publicKey: bytea('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull(),
    transports: text('transports').array().notNull(),
    deviceType: text('device_type', { enum: ['singleDevice', 'multiDevice'] }).notNull(),
    backedUp: boolean('backed_up').notNull(),
    name: text('name').notNull(),
    createdAt: instant('created_at').notNull(),
    lastUsedAt: instant('last_used_at'),
    suspendedAt: instant('suspended_at'),
  },
  (table) => [
    check('portcullis_passkeys_counter_check', sql`${table.counter} between 0 and 4294967295`),
    check(
      'portcullis_passkeys_device_type_check',
      sql`${table.deviceType} in ('singleDevice', 'multiDevice')`,
    ),
    index('portcullis_passkeys_account_idx').on(table.accountId, table.createdAt),
  ],
)

/** Pending WebAuthn challenges, by HMAC digest only; one-use, short-lived. */
export const passkeyChallengesTable = pgTable(
  'portcullis_passkey_challenges',
  {
    challengeDigest: text('challenge_digest').primaryKey(),
    bindingDigest: text('binding_digest').notNull(),
    ceremony: text('ceremony', { enum: ['registration', 'authentication'] }).notNull(),
    accountId: text('account_id'),
    sessionDigest: text('session_digest'),
    purpose: text('purpose'),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (table) => [
    check(
      'portcullis_passkey_challenges_ceremony_check',
      sql`${table.ceremony} in ('registration', 'authentication')`,
    ),
    check('portcullis_passkey_challenges_expiry_check', sql`${table.expiresAt} > ${table.createdAt}`),
    index('portcullis_passkey_challenges_expiry_idx').on(table.expiresAt),
    // An account's registration challenges, deleted with it.
    index('portcullis_passkey_challenges_account_idx').on(table.accountId),
  ],
)
