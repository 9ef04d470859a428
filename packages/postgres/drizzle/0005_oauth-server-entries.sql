-- The authorization server's entries (oidc-provider's adapter models) in one table keyed by model and id;
-- B-tree indexes for each lookup the store makes: a grant's entries, an interaction by uid, a device flow
-- by user code, an account's grants (partial, Grant rows only), and expiry for the sweep.
CREATE TABLE "portcullis_oauth_server_entries" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"account_id" text,
	"client_id" text,
	"security_epoch" bigint,
	"consumed_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "portcullis_oauth_server_entries_pkey" PRIMARY KEY("model","id"),
	CONSTRAINT "portcullis_oauth_server_entries_payload_check" CHECK (jsonb_typeof("portcullis_oauth_server_entries"."payload") = 'object')
);
--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_grant_id_idx" ON "portcullis_oauth_server_entries" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_uid_idx" ON "portcullis_oauth_server_entries" USING btree ("model","uid");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_user_code_idx" ON "portcullis_oauth_server_entries" USING btree ("model","user_code");--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_account_idx" ON "portcullis_oauth_server_entries" USING btree ("account_id") WHERE "portcullis_oauth_server_entries"."model" = 'Grant';--> statement-breakpoint
CREATE INDEX "portcullis_oauth_server_entries_expires_at_idx" ON "portcullis_oauth_server_entries" USING btree ("expires_at");