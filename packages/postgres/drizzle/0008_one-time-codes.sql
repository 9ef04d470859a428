-- One-time codes: a new table, so nothing existing is rewritten. The foreign key to the accounts is
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
CREATE INDEX "portcullis_one_time_codes_expiry" ON "portcullis_one_time_codes" USING btree ("expires_at");