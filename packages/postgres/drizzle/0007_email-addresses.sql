-- Email addresses on the account: a new table (nothing existing is rewritten or locked for long) and two
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
CREATE UNIQUE INDEX "portcullis_email_addresses_primary_key" ON "portcullis_email_addresses" USING btree ("account_id") WHERE "portcullis_email_addresses"."is_primary";