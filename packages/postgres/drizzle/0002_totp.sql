-- The TOTP second factor: one enrollment per account (the secret only as a protector envelope, the last
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
ALTER TABLE "portcullis_recovery_codes" ADD CONSTRAINT "portcullis_recovery_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "portcullis_totp_enrollments"("account_id") ON DELETE cascade ON UPDATE no action;