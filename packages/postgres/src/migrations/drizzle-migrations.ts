// Generated from drizzle/ by scripts/drizzle-module.ts (`pnpm db:generate` runs it after drizzle-kit):
// do not edit. The build and a test fail when it differs from drizzle/.
import type { DrizzleMigration } from './migration.js'

/** The journal of drizzle/ in its order, each entry with the exact text of its SQL file. */
export const DRIZZLE_MIGRATIONS: readonly DrizzleMigration[] = [
  {
    idx: 0,
    tag: '0000_baseline',
    sql: `CREATE TABLE "portcullis_api_keys" (
	"key_id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"owner_kind" text NOT NULL,
	"digest" "bytea" NOT NULL,
	"pepper_version" text NOT NULL,
	"restrictions" jsonb NOT NULL,
	"label" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"overlap_until" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "portcullis_api_keys_owner_kind_check" CHECK ("portcullis_api_keys"."owner_kind" in ('user', 'service')),
	CONSTRAINT "portcullis_api_keys_digest_check" CHECK (octet_length("portcullis_api_keys"."digest") = 32),
	CONSTRAINT "portcullis_api_keys_restrictions_check" CHECK (jsonb_typeof("portcullis_api_keys"."restrictions") = 'object'),
	CONSTRAINT "portcullis_api_keys_expires_at_check" CHECK ("portcullis_api_keys"."expires_at" > "portcullis_api_keys"."created_at"),
	CONSTRAINT "portcullis_api_keys_overlap_until_check" CHECK ("portcullis_api_keys"."overlap_until" is null or ("portcullis_api_keys"."revoked_at" is not null and "portcullis_api_keys"."overlap_until" >= "portcullis_api_keys"."revoked_at" and ("portcullis_api_keys"."expires_at" is null or "portcullis_api_keys"."overlap_until" <= "portcullis_api_keys"."expires_at")))
);
--> statement-breakpoint
CREATE TABLE "portcullis_local_account_invites" (
	"digest" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"consumed_by" text,
	CONSTRAINT "portcullis_local_account_invites_expires_at_check" CHECK ("portcullis_local_account_invites"."expires_at" > "portcullis_local_account_invites"."created_at")
);
--> statement-breakpoint
CREATE TABLE "portcullis_local_accounts" (
	"account_id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"security_epoch" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"password_changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_local_accounts_username_key" UNIQUE("username"),
	CONSTRAINT "portcullis_local_accounts_security_epoch_check" CHECK ("portcullis_local_accounts"."security_epoch" >= 1)
);
--> statement-breakpoint
CREATE TABLE "portcullis_rate_limits" (
	"limit_key" text PRIMARY KEY NOT NULL,
	"attempts" bigint NOT NULL,
	"reset_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_rate_limits_attempts_check" CHECK ("portcullis_rate_limits"."attempts" >= 1)
);
--> statement-breakpoint
CREATE TABLE "portcullis_refresh_families" (
	"family_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"security_epoch" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"absolute_expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "portcullis_refresh_families_security_epoch_check" CHECK ("portcullis_refresh_families"."security_epoch" >= 0),
	CONSTRAINT "portcullis_refresh_families_absolute_expires_at_check" CHECK ("portcullis_refresh_families"."absolute_expires_at" > "portcullis_refresh_families"."created_at")
);
--> statement-breakpoint
CREATE TABLE "portcullis_refresh_tokens" (
	"digest" text PRIMARY KEY NOT NULL,
	"family_id" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "portcullis_sessions" (
	"digest" text PRIMARY KEY NOT NULL,
	"handle" text NOT NULL,
	"account_id" text NOT NULL,
	"security_epoch" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"idle_expires_at" timestamp with time zone NOT NULL,
	"absolute_expires_at" timestamp with time zone NOT NULL,
	"user_agent" text,
	"client_address" text,
	CONSTRAINT "portcullis_sessions_account_handle_key" UNIQUE("account_id","handle"),
	CONSTRAINT "portcullis_sessions_security_epoch_check" CHECK ("portcullis_sessions"."security_epoch" >= 0),
	CONSTRAINT "portcullis_sessions_idle_expires_at_check" CHECK ("portcullis_sessions"."idle_expires_at" <= "portcullis_sessions"."absolute_expires_at")
);
--> statement-breakpoint
CREATE TABLE "portcullis_accounts" (
	"account_id" text PRIMARY KEY NOT NULL,
	"other_login_methods" integer NOT NULL,
	"provider_links" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "portcullis_accounts_other_login_methods_check" CHECK ("portcullis_accounts"."other_login_methods" between 0 and 1000),
	CONSTRAINT "portcullis_accounts_provider_links_check" CHECK ("portcullis_accounts"."provider_links" >= 0)
);
--> statement-breakpoint
CREATE TABLE "portcullis_oauth_links" (
	"provider_account_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"grant_scopes" text[] NOT NULL,
	"grant_expires_at" timestamp with time zone,
	"linked_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_oauth_links_identity_key" UNIQUE("provider","issuer","subject"),
	CONSTRAINT "portcullis_oauth_links_account_provider_key" UNIQUE("account_id","provider")
);
--> statement-breakpoint
CREATE TABLE "portcullis_oauth_revocation_retries" (
	"retry_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"client_id" text NOT NULL,
	"provider_account_id" text NOT NULL,
	"failed_token_types" text[] NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claim" text,
	"claimed_until" timestamp with time zone,
	"envelope" text NOT NULL,
	CONSTRAINT "portcullis_oauth_revocation_retries_attempts_check" CHECK ("portcullis_oauth_revocation_retries"."attempts" >= 0)
);
--> statement-breakpoint
CREATE TABLE "portcullis_oauth_token_vault" (
	"provider_account_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"client_id" text NOT NULL,
	"version" bigint NOT NULL,
	"envelope" text,
	"scopes" text[],
	"expires_at" timestamp with time zone,
	CONSTRAINT "portcullis_oauth_token_vault_version_check" CHECK ("portcullis_oauth_token_vault"."version" >= 1),
	CONSTRAINT "portcullis_oauth_token_vault_retained" CHECK (("portcullis_oauth_token_vault"."envelope" is null) = ("portcullis_oauth_token_vault"."scopes" is null) and ("portcullis_oauth_token_vault"."envelope" is null) = ("portcullis_oauth_token_vault"."expires_at" is null))
);
--> statement-breakpoint
CREATE TABLE "portcullis_oauth_transactions" (
	"state_digest" "bytea" NOT NULL,
	"binding_digest" "bytea" NOT NULL,
	"provider" text NOT NULL,
	"operation" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"return_to" text NOT NULL,
	"requested_scopes" text[] NOT NULL,
	"pkce_verifier_envelope" text NOT NULL,
	"nonce_envelope" text,
	"expected_issuer" text,
	"account_id" text,
	"session_binding_digest" "bytea",
	"security_epoch" bigint,
	"provider_account_id" text,
	"step_up_purpose" text,
	"max_authentication_age" integer,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_oauth_transactions_pkey" PRIMARY KEY("state_digest","binding_digest","provider"),
	CONSTRAINT "portcullis_oauth_transactions_digests_check" CHECK (octet_length("portcullis_oauth_transactions"."state_digest") = 32 and octet_length("portcullis_oauth_transactions"."binding_digest") = 32 and ("portcullis_oauth_transactions"."session_binding_digest" is null or octet_length("portcullis_oauth_transactions"."session_binding_digest") = 32)),
	CONSTRAINT "portcullis_oauth_transactions_operation_check" CHECK ("portcullis_oauth_transactions"."operation" in ('login', 'link', 'scope-upgrade', 'revalidate', 'reauthenticate')),
	CONSTRAINT "portcullis_oauth_transactions_lifetime_check" CHECK ("portcullis_oauth_transactions"."expires_at" > "portcullis_oauth_transactions"."created_at" and "portcullis_oauth_transactions"."expires_at" <= "portcullis_oauth_transactions"."created_at" + interval '10 minutes')
);
--> statement-breakpoint
CREATE TABLE "portcullis_step_up_credentials" (
	"digest" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"purpose" text NOT NULL,
	"security_epoch" bigint NOT NULL,
	"session_digest" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"authenticated_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_step_up_credentials_security_epoch_check" CHECK ("portcullis_step_up_credentials"."security_epoch" >= 0),
	CONSTRAINT "portcullis_step_up_credentials_check" CHECK ("portcullis_step_up_credentials"."expires_at" > "portcullis_step_up_credentials"."issued_at")
);
--> statement-breakpoint
ALTER TABLE "portcullis_refresh_tokens" ADD CONSTRAINT "portcullis_refresh_tokens_family_id_fkey" FOREIGN KEY ("family_id") REFERENCES "public"."portcullis_refresh_families"("family_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portcullis_oauth_links" ADD CONSTRAINT "portcullis_oauth_links_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "public"."portcullis_accounts"("account_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portcullis_api_keys_expires_at_idx" ON "portcullis_api_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_local_account_invites_expires_at_idx" ON "portcullis_local_account_invites" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_rate_limits_reset_at_idx" ON "portcullis_rate_limits" USING btree ("reset_at");--> statement-breakpoint
CREATE INDEX "portcullis_refresh_families_account_id_idx" ON "portcullis_refresh_families" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "portcullis_refresh_families_absolute_expires_at_idx" ON "portcullis_refresh_families" USING btree ("absolute_expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_refresh_tokens_family_id_idx" ON "portcullis_refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "portcullis_sessions_idle_expires_at_idx" ON "portcullis_sessions" USING btree ("idle_expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_revocation_retries_due" ON "portcullis_oauth_revocation_retries" USING btree ("provider","client_id","occurred_at","retry_id");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_transactions_expires_at_idx" ON "portcullis_oauth_transactions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_step_up_credentials_expiry" ON "portcullis_step_up_credentials" USING btree ("expires_at");`,
  },
  {
    idx: 1,
    tag: '0001_one-account',
    sql: `-- One account per person: \`portcullis_accounts\` becomes the one account record (security epoch, status,
-- timestamps) and every sign-in method is a row of its own: the password moves from
-- \`portcullis_local_accounts\` to \`portcullis_passwords\`, provider identities stay in
-- \`portcullis_oauth_links\`. Method counts are no longer stored: they are the rows. Data moves with the
-- schema (applied in the same transaction as every pending migration):
-- - an account in both tables keeps its links, takes the local account's security epoch (sessions and
--   token families made at that epoch stay valid) and the earlier creation time;
-- - an account only in \`portcullis_local_accounts\` gets its account row with that epoch;
-- - an account only in \`portcullis_accounts\` (provisioned by a provider sign-in) starts at epoch 1.
-- Methods counted through \`adjustLoginMethods\` without a row (a password kept outside Portcullis) are not
-- rows and do not survive as methods.
ALTER TABLE "portcullis_accounts" ADD COLUMN "security_epoch" bigint;--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ADD COLUMN "status" text;--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ADD COLUMN "updated_at" timestamp with time zone;--> statement-breakpoint
UPDATE "portcullis_accounts" AS "a"
   SET "security_epoch" = "l"."security_epoch",
       "created_at" = least("a"."created_at", "l"."created_at"),
       "updated_at" = greatest("a"."created_at", "l"."updated_at")
  FROM "portcullis_local_accounts" AS "l"
 WHERE "l"."account_id" = "a"."account_id";--> statement-breakpoint
INSERT INTO "portcullis_accounts"
       ("account_id", "other_login_methods", "provider_links", "created_at", "security_epoch", "updated_at")
SELECT "l"."account_id", 1, 0, "l"."created_at", "l"."security_epoch", "l"."updated_at"
  FROM "portcullis_local_accounts" AS "l"
 WHERE NOT EXISTS (SELECT 1 FROM "portcullis_accounts" AS "a" WHERE "a"."account_id" = "l"."account_id");--> statement-breakpoint
UPDATE "portcullis_accounts"
   SET "security_epoch" = coalesce("security_epoch", 1),
       "status" = 'active',
       "updated_at" = coalesce("updated_at", "created_at");--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ALTER COLUMN "security_epoch" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ALTER COLUMN "status" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ALTER COLUMN "updated_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ALTER COLUMN "created_at" DROP DEFAULT;--> statement-breakpoint
CREATE TABLE "portcullis_passwords" (
	"account_id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"password_changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_passwords_username_key" UNIQUE("username")
);--> statement-breakpoint
INSERT INTO "portcullis_passwords"
       ("account_id", "username", "password_hash", "created_at", "updated_at", "password_changed_at")
SELECT "account_id", "username", "password_hash", "created_at", "updated_at", "password_changed_at"
  FROM "portcullis_local_accounts";--> statement-breakpoint
ALTER TABLE "portcullis_passwords" ADD CONSTRAINT "portcullis_passwords_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
DROP TABLE "portcullis_local_accounts";--> statement-breakpoint
ALTER TABLE "portcullis_accounts" DROP CONSTRAINT "portcullis_accounts_other_login_methods_check";--> statement-breakpoint
ALTER TABLE "portcullis_accounts" DROP CONSTRAINT "portcullis_accounts_provider_links_check";--> statement-breakpoint
ALTER TABLE "portcullis_accounts" DROP COLUMN "other_login_methods";--> statement-breakpoint
ALTER TABLE "portcullis_accounts" DROP COLUMN "provider_links";--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ADD CONSTRAINT "portcullis_accounts_security_epoch_check" CHECK ("portcullis_accounts"."security_epoch" >= 1);--> statement-breakpoint
ALTER TABLE "portcullis_accounts" ADD CONSTRAINT "portcullis_accounts_status_check" CHECK ("portcullis_accounts"."status" in ('active', 'disabled'));
`,
  },
  {
    idx: 2,
    tag: '0002_totp',
    sql: `-- The TOTP second factor: one enrollment per account (the secret only as a protector envelope, the last
-- accepted time step as the one-time record against replays) and its recovery codes as peppered digests,
-- deleted with the enrollment. Self-contained: no other table is read or changed.
CREATE TABLE "portcullis_recovery_codes" (
	"account_id" text NOT NULL,
	"digest" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_recovery_codes_pkey" PRIMARY KEY("account_id","digest")
);
--> statement-breakpoint
CREATE TABLE "portcullis_totp_enrollments" (
	"account_id" text PRIMARY KEY NOT NULL,
	"sealed_secret" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"enabled_at" timestamp with time zone,
	"last_used_step" bigint,
	CONSTRAINT "portcullis_totp_enrollments_status_check" CHECK ("portcullis_totp_enrollments"."status" in ('pending', 'enabled')),
	CONSTRAINT "portcullis_totp_enrollments_enabled_check" CHECK (("portcullis_totp_enrollments"."status" = 'enabled') = ("portcullis_totp_enrollments"."enabled_at" is not null)),
	CONSTRAINT "portcullis_totp_enrollments_step_check" CHECK ("portcullis_totp_enrollments"."last_used_step" >= 0)
);
--> statement-breakpoint
ALTER TABLE "portcullis_recovery_codes" ADD CONSTRAINT "portcullis_recovery_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_totp_enrollments"("account_id") ON DELETE cascade ON UPDATE no action;`,
  },
  {
    idx: 3,
    tag: '0003_passkeys',
    sql: `-- Passkeys: registered WebAuthn credentials (a sign-in method of their account each, keyed by
-- credential id, public keys only) and pending ceremony challenges (HMAC digests of the challenge, the
-- browser binding and the session; one-use, short-lived). Self-contained: no other table is read or changed.
CREATE TABLE "portcullis_passkey_challenges" (
	"challenge_digest" text PRIMARY KEY NOT NULL,
	"binding_digest" text NOT NULL,
	"ceremony" text NOT NULL,
	"account_id" text,
	"session_digest" text,
	"purpose" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_passkey_challenges_ceremony_check" CHECK ("portcullis_passkey_challenges"."ceremony" in ('registration', 'authentication')),
	CONSTRAINT "portcullis_passkey_challenges_expiry_check" CHECK ("portcullis_passkey_challenges"."expires_at" > "portcullis_passkey_challenges"."created_at")
);
--> statement-breakpoint
CREATE TABLE "portcullis_passkeys" (
	"credential_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"public_key" "bytea" NOT NULL,
	"counter" bigint NOT NULL,
	"transports" text[] NOT NULL,
	"device_type" text NOT NULL,
	"backed_up" boolean NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"suspended_at" timestamp with time zone,
	CONSTRAINT "portcullis_passkeys_counter_check" CHECK ("portcullis_passkeys"."counter" between 0 and 4294967295),
	CONSTRAINT "portcullis_passkeys_device_type_check" CHECK ("portcullis_passkeys"."device_type" in ('singleDevice', 'multiDevice'))
);
--> statement-breakpoint
CREATE INDEX "portcullis_passkey_challenges_expiry_idx" ON "portcullis_passkey_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "portcullis_passkeys_account_idx" ON "portcullis_passkeys" USING btree ("account_id","created_at");`,
  },
  {
    idx: 4,
    tag: '0004_session-handle-tags',
    sql: `-- Session handle tags: a B-tree expression index on each of the two 11-character tag slots a session
-- handle of a provider sign-in starts with (subject, then provider session), so a back-channel logout
-- (\`revoke({ handleTags })\`) finds its sessions without scanning the sessions table.
-- Migrations run in one transaction, so these are plain CREATE INDEX: they block writes to the sessions
-- table (sign-ins, touches, sign-outs; reads go on) while they build. On a large table, build them
-- beforehand without blocking, as CREATE INDEX CONCURRENTLY IF NOT EXISTS with the same definitions
-- (docs/postgres.md); this migration then keeps them. An invalid one (a concurrent build that failed) is
-- dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_sessions_handle_tag_1_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_sessions_handle_tag_1_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_sessions_handle_tag_2_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_sessions_handle_tag_2_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_sessions_handle_tag_1_idx" ON "portcullis_sessions" USING btree (left("handle", 11));--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_sessions_handle_tag_2_idx" ON "portcullis_sessions" USING btree (substr("handle", 12, 11));
`,
  },
  {
    idx: 5,
    tag: '0005_oauth-server-entries',
    sql: `-- The authorization server's entries (oidc-provider's adapter models) in one table keyed by model and id;
-- B-tree indexes for each lookup the store makes: a grant's entries, an interaction by uid, a device flow
-- by user code, an account's grants (partial, Grant rows only), and expiry for the sweep.
CREATE TABLE "portcullis_oauth_server_entries" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"account_id" text,
	"client_id" text,
	"security_epoch" bigint,
	"consumed_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "portcullis_oauth_server_entries_pkey" PRIMARY KEY("model","id"),
	CONSTRAINT "portcullis_oauth_server_entries_payload_check" CHECK (jsonb_typeof("portcullis_oauth_server_entries"."payload") = 'object')
);
--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_grant_id_idx" ON "portcullis_oauth_server_entries" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_uid_idx" ON "portcullis_oauth_server_entries" USING btree ("model","uid");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_user_code_idx" ON "portcullis_oauth_server_entries" USING btree ("model","user_code");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_account_idx" ON "portcullis_oauth_server_entries" USING btree ("account_id") WHERE "portcullis_oauth_server_entries"."model" = 'Grant';--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_expires_at_idx" ON "portcullis_oauth_server_entries" USING btree ("expires_at");`,
  },
  {
    idx: 6,
    tag: '0006_store-lookup-indexes',
    sql: `-- Store lookup indexes the query-plan test (test/query-plans.test.ts) found missing on the scale fixture:
-- deleting an account deleted its API keys, step-up credentials and passkey challenges with a sequential
-- scan of each table, and listing an owner's API keys scanned the keys table.
-- Migrations run in one transaction, so these are plain CREATE INDEX: each blocks writes to its table
-- (reads go on) while it builds (about a second for 10^6 API keys, see docs/performance.md). On a large
-- table, build them beforehand without blocking, as CREATE INDEX CONCURRENTLY IF NOT EXISTS with the same
-- definitions (docs/postgres.md); this migration then keeps them. An invalid one (a concurrent build that
-- failed) is dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_api_keys_owner_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_api_keys_owner_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_passkey_challenges_account_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_passkey_challenges_account_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_step_up_credentials_account_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_step_up_credentials_account_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_api_keys_owner_idx" ON "portcullis_api_keys" USING btree ("owner_id","owner_kind");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_passkey_challenges_account_idx" ON "portcullis_passkey_challenges" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_step_up_credentials_account_idx" ON "portcullis_step_up_credentials" USING btree ("account_id");
`,
  },
  {
    idx: 7,
    tag: '0007_email-addresses',
    sql: `-- Email addresses on the account: a new table (nothing existing is rewritten or locked for long) and two
-- nullable columns on the identity links for what the provider said of its email (informational only:
-- adding a nullable column without a default changes no row). A verified address belongs to one account
-- at most (the partial unique index, which is also the sign-in lookup); an account has one primary at most.
CREATE TABLE "portcullis_email_addresses" (
	"account_id" text NOT NULL,
	"address" text NOT NULL,
	"verified_at" timestamp with time zone,
	"is_primary" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_email_addresses_pkey" PRIMARY KEY("account_id","address"),
	CONSTRAINT "portcullis_email_addresses_address_check" CHECK (octet_length("portcullis_email_addresses"."address") <= 254)
);
--> statement-breakpoint
ALTER TABLE "portcullis_oauth_links" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "portcullis_oauth_links" ADD COLUMN "email_verified" boolean;--> statement-breakpoint
ALTER TABLE "portcullis_email_addresses" ADD CONSTRAINT "portcullis_email_addresses_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portcullis_email_addresses_verified_key" ON "portcullis_email_addresses" USING btree ("address") WHERE "portcullis_email_addresses"."verified_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "portcullis_email_addresses_primary_key" ON "portcullis_email_addresses" USING btree ("account_id") WHERE "portcullis_email_addresses"."is_primary";`,
  },
  {
    idx: 8,
    tag: '0008_one-time-codes',
    sql: `-- One-time codes: a new table, so nothing existing is rewritten. The foreign key to the accounts is
-- added on the empty table (validated at once; the accounts table is locked only for that instant), and
-- takes an account's codes with the account (on delete cascade). Codes are HMAC digests, never codes.
CREATE TABLE "portcullis_one_time_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"account_id" text,
	"address" text NOT NULL,
	"digest" "bytea" NOT NULL,
	"key_version" integer NOT NULL,
	"attempts" integer NOT NULL,
	"max_attempts" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"payload" text,
	CONSTRAINT "portcullis_one_time_codes_purpose_check" CHECK ("portcullis_one_time_codes"."purpose" in ('email-verification', 'password-reset', 'email-change', 'email-change-undo', 'sign-in', 'invitation')),
	CONSTRAINT "portcullis_one_time_codes_id_check" CHECK ("portcullis_one_time_codes"."id" ~ '^[A-Za-z0-9_-]{22,64}$'),
	CONSTRAINT "portcullis_one_time_codes_address_check" CHECK (octet_length("portcullis_one_time_codes"."address") <= 254),
	CONSTRAINT "portcullis_one_time_codes_digest_check" CHECK (octet_length("portcullis_one_time_codes"."digest") = 32),
	CONSTRAINT "portcullis_one_time_codes_key_version_check" CHECK ("portcullis_one_time_codes"."key_version" >= 0),
	CONSTRAINT "portcullis_one_time_codes_attempts_check" CHECK ("portcullis_one_time_codes"."attempts" >= 0 and "portcullis_one_time_codes"."attempts" < "portcullis_one_time_codes"."max_attempts" and "portcullis_one_time_codes"."max_attempts" between 1 and 100),
	CONSTRAINT "portcullis_one_time_codes_expires_at_check" CHECK ("portcullis_one_time_codes"."expires_at" > "portcullis_one_time_codes"."created_at")
);
--> statement-breakpoint
ALTER TABLE "portcullis_one_time_codes" ADD CONSTRAINT "portcullis_one_time_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portcullis_one_time_codes_account_idx" ON "portcullis_one_time_codes" USING btree ("account_id","purpose") WHERE "portcullis_one_time_codes"."account_id" is not null;--> statement-breakpoint
CREATE INDEX "portcullis_one_time_codes_address_idx" ON "portcullis_one_time_codes" USING btree ("purpose","address") WHERE "portcullis_one_time_codes"."account_id" is null;--> statement-breakpoint
CREATE INDEX "portcullis_one_time_codes_expiry" ON "portcullis_one_time_codes" USING btree ("expires_at");`,
  },
  {
    idx: 9,
    tag: '0009_mail-outbox',
    sql: `CREATE TABLE "portcullis_mail_outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" text,
	"envelope" text,
	"created_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"failed_at" timestamp with time zone,
	CONSTRAINT "portcullis_mail_outbox_state_check" CHECK ("portcullis_mail_outbox"."state" in ('pending', 'failed')),
	CONSTRAINT "portcullis_mail_outbox_envelope_check" CHECK (("portcullis_mail_outbox"."state" = 'pending') = ("portcullis_mail_outbox"."envelope" is not null)),
	CONSTRAINT "portcullis_mail_outbox_failed_check" CHECK (("portcullis_mail_outbox"."state" = 'failed') = ("portcullis_mail_outbox"."failed_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "portcullis_notification_settings" (
	"account_id" text PRIMARY KEY NOT NULL,
	"opt_outs" text[] NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "portcullis_notification_settings" ADD CONSTRAINT "portcullis_notification_settings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portcullis_mail_outbox_claim_idx" ON "portcullis_mail_outbox" USING btree ("state","next_attempt_at");`,
  },
  {
    idx: 10,
    tag: '0010_security-log',
    sql: `CREATE TABLE "portcullis_security_log" (
	"occurred_at" timestamp with time zone NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"account_id" text,
	"actor_id" text,
	"reason" text,
	"session_handle" text,
	"client_address" text,
	"client_address_hash" text,
	"browser" text,
	"os" text,
	"platform" text,
	"details" jsonb NOT NULL,
	CONSTRAINT "portcullis_security_log_pkey" PRIMARY KEY("occurred_at","id"),
	CONSTRAINT "portcullis_security_log_details_check" CHECK (jsonb_typeof("portcullis_security_log"."details") = 'object')
);
--> statement-breakpoint
CREATE INDEX "portcullis_security_log_account_idx" ON "portcullis_security_log" USING btree ("account_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "portcullis_security_log_type_idx" ON "portcullis_security_log" USING btree ("type","occurred_at","id");`,
  },
  {
    idx: 11,
    tag: '0011_account-search',
    sql: `-- Account search for administrators and operators (AccountDirectory): usernames and addresses in
-- code-point order, so an exact name, an exact address (verified or not) or a prefix is one index range
-- and the first matches come in index order (no sort of every match).
-- Migrations run in one transaction, so these are plain CREATE INDEX: each blocks writes to its table
-- (reads go on) while it builds. \`migrate\` builds them beforehand without blocking, as CREATE INDEX
-- CONCURRENTLY IF NOT EXISTS with the same definitions, on tables that exist; this migration then keeps
-- them. An invalid one (a concurrent build that failed) is dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_email_addresses_address_c_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_email_addresses_address_c_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_passwords_username_c_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_passwords_username_c_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_email_addresses_address_c_idx" ON "portcullis_email_addresses" USING btree ("address" collate "C","account_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_passwords_username_c_idx" ON "portcullis_passwords" USING btree ("username" collate "C");
`,
  },
  {
    idx: 12,
    tag: '0012_organizations',
    sql: `CREATE TABLE "portcullis_invitations" (
	"invitation_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"address" text NOT NULL,
	"role" text NOT NULL,
	"inviter_account_id" text NOT NULL,
	"digest" "bytea" NOT NULL,
	"key_version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_invitations_id_check" CHECK ("portcullis_invitations"."invitation_id" ~ '^[A-Za-z0-9_-]{22,64}$'),
	CONSTRAINT "portcullis_invitations_address_check" CHECK (octet_length("portcullis_invitations"."address") <= 254),
	CONSTRAINT "portcullis_invitations_digest_check" CHECK (octet_length("portcullis_invitations"."digest") = 32),
	CONSTRAINT "portcullis_invitations_key_version_check" CHECK ("portcullis_invitations"."key_version" >= 0),
	CONSTRAINT "portcullis_invitations_expires_at_check" CHECK ("portcullis_invitations"."expires_at" > "portcullis_invitations"."created_at")
);
--> statement-breakpoint
CREATE TABLE "portcullis_memberships" (
	"organization_id" text NOT NULL,
	"account_id" text NOT NULL,
	"role" text NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_memberships_pkey" PRIMARY KEY("organization_id","account_id"),
	CONSTRAINT "portcullis_memberships_role_check" CHECK (char_length("portcullis_memberships"."role") between 1 and 64)
);
--> statement-breakpoint
CREATE TABLE "portcullis_organizations" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_organizations_id_check" CHECK ("portcullis_organizations"."organization_id" ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$'),
	CONSTRAINT "portcullis_organizations_name_check" CHECK (char_length("portcullis_organizations"."name") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "portcullis_invitations" ADD CONSTRAINT "portcullis_invitations_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "portcullis_organizations"("organization_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portcullis_invitations" ADD CONSTRAINT "portcullis_invitations_inviter_account_id_fkey" FOREIGN KEY ("inviter_account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portcullis_memberships" ADD CONSTRAINT "portcullis_memberships_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "portcullis_organizations"("organization_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portcullis_memberships" ADD CONSTRAINT "portcullis_memberships_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portcullis_invitations_organization_idx" ON "portcullis_invitations" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "portcullis_invitations_inviter_idx" ON "portcullis_invitations" USING btree ("inviter_account_id");--> statement-breakpoint
CREATE INDEX "portcullis_memberships_account_idx" ON "portcullis_memberships" USING btree ("account_id","organization_id");--> statement-breakpoint
CREATE INDEX "portcullis_memberships_owners_idx" ON "portcullis_memberships" USING btree ("organization_id") WHERE "portcullis_memberships"."role" = 'owner';`,
  },
  {
    idx: 13,
    tag: '0013_organization-domains',
    sql: `CREATE TABLE "portcullis_organization_domains" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"domain" text NOT NULL,
	"token" text NOT NULL,
	"enrollment" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"verified_at" timestamp with time zone,
	CONSTRAINT "portcullis_organization_domains_id_check" CHECK ("portcullis_organization_domains"."id" ~ '^[A-Za-z0-9_-]{22,64}$'),
	CONSTRAINT "portcullis_organization_domains_token_check" CHECK ("portcullis_organization_domains"."token" ~ '^[A-Za-z0-9_-]{22,64}$'),
	CONSTRAINT "portcullis_organization_domains_domain_check" CHECK (octet_length("portcullis_organization_domains"."domain") <= 253 and "portcullis_organization_domains"."domain" = lower("portcullis_organization_domains"."domain")),
	CONSTRAINT "portcullis_organization_domains_enrollment_check" CHECK ("portcullis_organization_domains"."enrollment" in ('manual-invitation', 'automatic-invitation', 'automatic-suggestion'))
);
--> statement-breakpoint
ALTER TABLE "portcullis_organization_domains" ADD CONSTRAINT "portcullis_organization_domains_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "portcullis_organizations"("organization_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portcullis_organization_domains_organization_domain_key" ON "portcullis_organization_domains" USING btree ("organization_id","domain");--> statement-breakpoint
CREATE UNIQUE INDEX "portcullis_organization_domains_verified_key" ON "portcullis_organization_domains" USING btree ("domain") WHERE "portcullis_organization_domains"."verified_at" is not null;`,
  },
  {
    idx: 14,
    tag: '0014_session-active-organization',
    sql: `ALTER TABLE "portcullis_sessions" ADD COLUMN "active_organization_id" text;`,
  },
  {
    idx: 15,
    tag: '0015_domain-enrolled-by',
    sql: `ALTER TABLE "portcullis_organization_domains" ADD COLUMN "enrolled_by" text;`,
  },
  {
    idx: 16,
    tag: '0016_join-requests',
    sql: `CREATE TABLE "portcullis_join_requests" (
	"request_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"account_id" text NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "portcullis_join_requests_id_check" CHECK ("portcullis_join_requests"."request_id" ~ '^[A-Za-z0-9_-]{22,64}$'),
	CONSTRAINT "portcullis_join_requests_address_check" CHECK (octet_length("portcullis_join_requests"."address") <= 254)
);
--> statement-breakpoint
ALTER TABLE "portcullis_join_requests" ADD CONSTRAINT "portcullis_join_requests_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "portcullis_organizations"("organization_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portcullis_join_requests" ADD CONSTRAINT "portcullis_join_requests_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_accounts"("account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portcullis_join_requests_organization_account_key" ON "portcullis_join_requests" USING btree ("organization_id","account_id");--> statement-breakpoint
CREATE INDEX "portcullis_join_requests_organization_idx" ON "portcullis_join_requests" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "portcullis_join_requests_account_idx" ON "portcullis_join_requests" USING btree ("account_id","created_at");`,
  },
]
