CREATE TABLE "portcullis_organization_domains" (
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
CREATE UNIQUE INDEX "portcullis_organization_domains_verified_key" ON "portcullis_organization_domains" USING btree ("domain") WHERE "portcullis_organization_domains"."verified_at" is not null;