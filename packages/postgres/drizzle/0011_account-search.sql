-- Account search for administrators and operators (AccountDirectory): usernames and addresses in
-- code-point order, so an exact name, an exact address (verified or not) or a prefix is one index range
-- and the first matches come in index order (no sort of every match).
-- Migrations run in one transaction, so these are plain CREATE INDEX: each blocks writes to its table
-- (reads go on) while it builds. `migrate` builds them beforehand without blocking, as CREATE INDEX
-- CONCURRENTLY IF NOT EXISTS with the same definitions, on tables that exist; this migration then keeps
-- them. An invalid one (a concurrent build that failed) is dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_email_addresses_address_c_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_email_addresses_address_c_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_passwords_username_c_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_passwords_username_c_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_email_addresses_address_c_idx" ON "portcullis_email_addresses" USING btree ("address" collate "C","account_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_passwords_username_c_idx" ON "portcullis_passwords" USING btree ("username" collate "C");
