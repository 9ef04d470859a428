import type { Migration } from './migration.js'

/**
 * API key records by key id: the HMAC digest of the secret (never the key), its pepper version, the
 * owner, restrictions, lifetime, rotation overlap and last use. `src/api-keys/tables.ts` mirrors it.
 */
export const apiKeys: Migration = {
  version: 3,
  name: 'api-keys',
  sql: `
create table portcullis_api_keys (
  key_id text primary key,
  owner_id text not null,
  owner_kind text not null,
  digest bytea not null,
  pepper_version text not null,
  restrictions jsonb not null,
  label text,
  created_at timestamp with time zone not null,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  overlap_until timestamp with time zone,
  last_used_at timestamp with time zone,
  constraint portcullis_api_keys_owner_kind_check check (owner_kind in ('user', 'service')),
  constraint portcullis_api_keys_digest_check check (octet_length(digest) = 32),
  constraint portcullis_api_keys_restrictions_check check (jsonb_typeof(restrictions) = 'object'),
  constraint portcullis_api_keys_expires_at_check check (expires_at > created_at),
  constraint portcullis_api_keys_overlap_until_check check (
    overlap_until is null
    or (revoked_at is not null and overlap_until >= revoked_at and (expires_at is null or overlap_until <= expires_at))
  )
);

create index portcullis_api_keys_expires_at_idx on portcullis_api_keys (expires_at);
`,
}
