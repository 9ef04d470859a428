import type { Migration } from './migration.js'

/**
 * Local accounts and single-use invites, sessions, rotating refresh-token families and fixed-window rate
 * limits. Tokens, session ids and invite codes are stored only as SHA-256 digests. The expiry columns
 * are indexed for the sweep: a session is over when `idle_expires_at` passes (it never exceeds
 * `absolute_expires_at`), a refresh family and its tokens when `absolute_expires_at` passes.
 * `src/local-accounts/tables.ts` mirrors it.
 */
export const localAccounts: Migration = {
  version: 5,
  name: 'local-accounts',
  sql: `
create table portcullis_local_accounts (
  account_id text primary key,
  username text not null,
  password_hash text not null,
  security_epoch bigint not null,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  password_changed_at timestamp with time zone not null,
  constraint portcullis_local_accounts_username_key unique (username),
  constraint portcullis_local_accounts_security_epoch_check check (security_epoch >= 1)
);

create table portcullis_local_account_invites (
  digest text primary key,
  created_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  consumed_at timestamp with time zone,
  consumed_by text,
  constraint portcullis_local_account_invites_expires_at_check check (expires_at > created_at)
);

create index portcullis_local_account_invites_expires_at_idx on portcullis_local_account_invites (expires_at);

create table portcullis_sessions (
  digest text primary key,
  handle text not null,
  account_id text not null,
  security_epoch bigint not null,
  created_at timestamp with time zone not null,
  last_seen_at timestamp with time zone not null,
  idle_expires_at timestamp with time zone not null,
  absolute_expires_at timestamp with time zone not null,
  user_agent text,
  client_address text,
  constraint portcullis_sessions_account_handle_key unique (account_id, handle),
  constraint portcullis_sessions_security_epoch_check check (security_epoch >= 0),
  constraint portcullis_sessions_idle_expires_at_check check (idle_expires_at <= absolute_expires_at)
);

create index portcullis_sessions_idle_expires_at_idx on portcullis_sessions (idle_expires_at);

create table portcullis_refresh_families (
  family_id text primary key,
  account_id text not null,
  security_epoch bigint not null,
  created_at timestamp with time zone not null,
  absolute_expires_at timestamp with time zone not null,
  revoked_at timestamp with time zone,
  constraint portcullis_refresh_families_security_epoch_check check (security_epoch >= 0),
  constraint portcullis_refresh_families_absolute_expires_at_check check (absolute_expires_at > created_at)
);

create index portcullis_refresh_families_account_id_idx on portcullis_refresh_families (account_id);
create index portcullis_refresh_families_absolute_expires_at_idx on portcullis_refresh_families (absolute_expires_at);

create table portcullis_refresh_tokens (
  digest text primary key,
  family_id text not null,
  issued_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  rotated_at timestamp with time zone,
  constraint portcullis_refresh_tokens_family_id_fkey foreign key (family_id)
    references portcullis_refresh_families (family_id) on delete cascade
);

create index portcullis_refresh_tokens_family_id_idx on portcullis_refresh_tokens (family_id);

create table portcullis_rate_limits (
  limit_key text primary key,
  attempts bigint not null,
  reset_at timestamp with time zone not null,
  constraint portcullis_rate_limits_attempts_check check (attempts >= 1)
);

create index portcullis_rate_limits_reset_at_idx on portcullis_rate_limits (reset_at);
`,
}
