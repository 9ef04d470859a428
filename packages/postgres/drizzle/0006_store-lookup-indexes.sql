-- Store lookup indexes the query-plan test (test/query-plans.test.ts) found missing on the scale fixture:
-- deleting an account deleted its API keys, step-up credentials and passkey challenges with a sequential
-- scan of each table, and listing an owner's API keys scanned the keys table.
-- Migrations run in one transaction, so these are plain CREATE INDEX: each blocks writes to its table
-- (reads go on) while it builds (about a second for 10^6 API keys, see docs/performance.md). On a large
-- table, build them beforehand without blocking, as CREATE INDEX CONCURRENTLY IF NOT EXISTS with the same
-- definitions (docs/postgres.md); this migration then keeps them. An invalid one (a concurrent build that
-- failed) is dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_api_keys_owner_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_api_keys_owner_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_passkey_challenges_account_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_passkey_challenges_account_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_step_up_credentials_account_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_step_up_credentials_account_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_api_keys_owner_idx" ON "portcullis_api_keys" USING btree ("owner_id","owner_kind");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_passkey_challenges_account_idx" ON "portcullis_passkey_challenges" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_step_up_credentials_account_idx" ON "portcullis_step_up_credentials" USING btree ("account_id");
