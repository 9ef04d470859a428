-- Session handle tags: a B-tree expression index on each of the two 11-character tag slots a session
-- handle of a provider sign-in starts with (subject, then provider session), so a back-channel logout
-- (`revoke({ handleTags })`) finds its sessions without scanning the sessions table.
-- Migrations run in one transaction, so these are plain CREATE INDEX: they block writes to the sessions
-- table (sign-ins, touches, sign-outs; reads go on) while they build. On a large table, build them
-- beforehand without blocking, as CREATE INDEX CONCURRENTLY IF NOT EXISTS with the same definitions
-- (docs/postgres.md); this migration then keeps them. An invalid one (a concurrent build that failed) is
-- dropped and built again here.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_sessions_handle_tag_1_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_sessions_handle_tag_1_idx;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('portcullis_sessions_handle_tag_2_idx') AND NOT indisvalid) THEN
    DROP INDEX portcullis_sessions_handle_tag_2_idx;
  END IF;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_sessions_handle_tag_1_idx" ON "portcullis_sessions" USING btree (left("handle", 11));--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "portcullis_sessions_handle_tag_2_idx" ON "portcullis_sessions" USING btree (substr("handle", 12, 11));
