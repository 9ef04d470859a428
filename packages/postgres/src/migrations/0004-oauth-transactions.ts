import type { Migration } from './migration.js'

/**
 * Pending OAuth round trips, keyed by the HMAC digests of state and browser binding plus the provider
 * (never the raw values). The PKCE verifier and nonce are `pe1.` protector envelopes. Lifetime at most
 * ten minutes. `src/oauth-transactions/tables.ts` mirrors it.
 */
export const oauthTransactions: Migration = {
  version: 4,
  name: 'oauth-transactions',
  sql: `
create table portcullis_oauth_transactions (
  state_digest bytea not null,
  binding_digest bytea not null,
  provider text not null,
  operation text not null,
  redirect_uri text not null,
  return_to text not null,
  requested_scopes text[] not null,
  pkce_verifier_envelope text not null,
  nonce_envelope text,
  expected_issuer text,
  account_id text,
  session_binding_digest bytea,
  security_epoch bigint,
  provider_account_id text,
  step_up_purpose text,
  max_authentication_age integer,
  created_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  constraint portcullis_oauth_transactions_pkey primary key (state_digest, binding_digest, provider),
  constraint portcullis_oauth_transactions_digests_check check (
    octet_length(state_digest) = 32
    and octet_length(binding_digest) = 32
    and (session_binding_digest is null or octet_length(session_binding_digest) = 32)
  ),
  constraint portcullis_oauth_transactions_operation_check check (
    operation in ('login', 'link', 'scope-upgrade', 'revalidate', 'reauthenticate')
  ),
  constraint portcullis_oauth_transactions_lifetime_check check (
    expires_at > created_at and expires_at <= created_at + interval '10 minutes'
  )
);

create index portcullis_oauth_transactions_expires_at_idx on portcullis_oauth_transactions (expires_at);
`,
}
