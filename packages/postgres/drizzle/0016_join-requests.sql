CREATE TABLE "portcullis_join_requests" (
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
CREATE INDEX "portcullis_join_requests_account_idx" ON "portcullis_join_requests" USING btree ("account_id","created_at");