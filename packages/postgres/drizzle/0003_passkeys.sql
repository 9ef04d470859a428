-- Passkeys: registered WebAuthn credentials (a sign-in method of their account each, keyed by
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
CREATE INDEX "portcullis_passkeys_account_idx" ON "portcullis_passkeys" USING btree ("account_id","created_at");