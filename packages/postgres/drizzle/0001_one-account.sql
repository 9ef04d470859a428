-- One account per person: `portcullis_accounts` becomes the one account record (security epoch, status,
-- timestamps) and every sign-in method is a row of its own: the password moves from
-- `portcullis_local_accounts` to `portcullis_passwords`, provider identities stay in
-- `portcullis_oauth_links`. Method counts are no longer stored: they are the rows. Data moves with the
-- schema (applied in the same transaction as every pending migration):
-- - an account in both tables keeps its links, takes the local account's security epoch (sessions and
--   token families made at that epoch stay valid) and the earlier creation time;
-- - an account only in `portcullis_local_accounts` gets its account row with that epoch;
-- - an account only in `portcullis_accounts` (provisioned by a provider sign-in) starts at epoch 1.
-- Methods counted through `adjustLoginMethods` without a row (a password kept outside Portcullis) are not
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
