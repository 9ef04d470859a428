import type { Migration } from './migration.js'

/** One-use step-up credentials, by digest only: the token itself is never stored. */
export const stepUp: Migration = {
  version: 2,
  name: 'step-up',
  sql: `
create table portcullis_step_up_credentials (
  digest text primary key,
  account_id text not null,
  purpose text not null,
  security_epoch bigint not null check (security_epoch >= 0),
  session_digest text not null,
  issued_at timestamptz not null,
  authenticated_at timestamptz not null,
  expires_at timestamptz not null check (expires_at > issued_at)
);

create index portcullis_step_up_credentials_expiry on portcullis_step_up_credentials (expires_at);
`,
}
