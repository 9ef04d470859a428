CREATE TABLE "portcullis_invitations" (
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
CREATE INDEX "portcullis_memberships_owners_idx" ON "portcullis_memberships" USING btree ("organization_id") WHERE "portcullis_memberships"."role" = 'owner';