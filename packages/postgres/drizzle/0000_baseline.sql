CREATE TABLE "portcullis_api_keys" (
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
CREATE INDEX "portcullis_step_up_credentials_expiry" ON "portcullis_step_up_credentials" USING btree ("expires_at");