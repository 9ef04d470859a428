CREATE TABLE "portcullis_mail_outbox" (
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
CREATE INDEX "portcullis_mail_outbox_claim_idx" ON "portcullis_mail_outbox" USING btree ("state","next_attempt_at");