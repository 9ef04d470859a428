CREATE TABLE "portcullis_security_log" (
	"occurred_at" timestamp with time zone NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"account_id" text,
	"actor_id" text,
	"reason" text,
	"session_handle" text,
	"client_address" text,
	"client_address_hash" text,
	"browser" text,
	"os" text,
	"platform" text,
	"details" jsonb NOT NULL,
	CONSTRAINT "portcullis_security_log_pkey" PRIMARY KEY("occurred_at","id"),
	CONSTRAINT "portcullis_security_log_details_check" CHECK (jsonb_typeof("portcullis_security_log"."details") = 'object')
);
--> statement-breakpoint
CREATE INDEX "portcullis_security_log_account_idx" ON "portcullis_security_log" USING btree ("account_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "portcullis_security_log_type_idx" ON "portcullis_security_log" USING btree ("type","occurred_at","id");