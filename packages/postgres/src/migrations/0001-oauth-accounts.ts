import type { Migration } from './migration.js'

/**
 * Local accounts (their login-method counts), exact identity links, the encrypted token vault and
 * staged revocation retries. Envelopes are `pe1.` strings from `serializeProtectedEnvelope`.
 */
export const oauthAccounts: Migration = {
  version: 1,
  name: 'oauth-accounts',
  sql: `
create table portcullis_accounts (
  account_id text primary key,
  other_login_methods integer not null check (other_login_methods between 0 and 1000),
  provider_links integer not null default 0 check (provider_links >= 0),
  created_at timestamptz not null default now()
);

create table portcullis_oauth_links (
  provider_account_id text primary key,
  account_id text not null references portcullis_accounts (account_id),
  provider text not null,
  issuer text not null,
  subject text not null,
  grant_scopes text[] not null,
  grant_expires_at timestamptz,
  linked_at timestamptz not null,
  updated_at timestamptz not null,
  constraint portcullis_oauth_links_identity_key unique (provider, issuer, subject),
  constraint portcullis_oauth_links_account_provider_key unique (account_id, provider)
);

-- One row per provider account that ever retained tokens, never deleted: discard and unlink clear the
-- envelope and keep the row, so "version" (the last version issued for the provider account) never
-- restarts and a compare-and-swap with a discarded version can never match again (no ABA).
create table portcullis_oauth_token_vault (
  provider_account_id text primary key,
  provider text not null,
  client_id text not null,
  version bigint not null check (version >= 1),
  envelope text,
  scopes text[],
  expires_at timestamptz,
  constraint portcullis_oauth_token_vault_retained check (
    (envelope is null) = (scopes is null) and (envelope is null) = (expires_at is null)
  )
);

create table portcullis_oauth_revocation_retries (
  retry_id text primary key,
  provider text not null,
  client_id text not null,
  provider_account_id text not null,
  failed_token_types text[] not null,
  occurred_at timestamptz not null,
  attempts integer not null default 0 check (attempts >= 0),
  claim text,
  claimed_until timestamptz,
  envelope text not null
);

create index portcullis_oauth_revocation_retries_due
  on portcullis_oauth_revocation_retries (provider, client_id, occurred_at, retry_id);
`,
}
