// The scale fixture's tables: one entry per table, each filled for a range of account numbers with one
// set-based INSERT ... SELECT over generate_series. Identifiers, digests and tags are pure functions of
// the account number (see `scaleIds`), so a test computes the same values in TypeScript and reads the rows
// back through the stores' public API.

// Hex digits are base64url characters too, and md5 is the cheapest hash the server has: identifiers are
// runs of MD5 hex (a 43-character digest is 43 hex digits, a 16-character API key id decodes to 12 bytes).
/** SQL for `length` (1-64) hex digits derived from a text expression; `hex` in ./ids.ts is the same. */
export const hex = (text: string, length: number): string =>
  length <= 32 ? `left(md5(${text}), ${length})` : `left(md5(${text}) || md5(${text} || '~'), ${length})`
/** SQL for SHA-256 of a text expression (32 bytes). */
export const sha256 = (text: string): string => `sha256((${text})::bytea)`

/** The values every statement gets: `$1` first account, `$2` last account, `$3` now, `$4` the filler envelope, `$5` the password hash. */
export interface ScaleTable {
  /** The table, as the migrations name it. */
  readonly table: string
  /** Rows per account, on average (for the report). */
  readonly perAccount: number
  /** One INSERT ... SELECT for accounts `$1`..`$2` (`i`), with `$3` now, `$4` filler envelope, `$5` password hash. */
  readonly insert: string
}

/** The FROM clause over accounts `$1`..`$2` (`i`), optionally joined to a second series, then a filter. */
const accounts = (where = 'true', join = '') =>
  `from generate_series($1::bigint, $2::bigint) as i ${join} where ${where}`
const now = '$3::timestamptz'

/**
 * Every table the fixture fills, parents before children. Tables another part of the schema adds later
 * (the authorization server's entries) are one more entry here: see `SCALE_GRANT_TABLES`.
 */
export const SCALE_TABLES: readonly ScaleTable[] = Object.freeze([
  {
    table: 'portcullis_accounts',
    perAccount: 1,
    insert: `insert into portcullis_accounts (account_id, created_at, security_epoch, status, updated_at)
      select 'account-' || i, ${now} - interval '400 days', 1, 'active', ${now} - interval '1 day' ${accounts()}`,
  },
  {
    table: 'portcullis_passwords',
    perAccount: 1,
    insert: `insert into portcullis_passwords (account_id, username, password_hash, created_at, updated_at, password_changed_at)
      select 'account-' || i, 'user-' || i || '@scale.example', $5::text, ${now} - interval '400 days',
             ${now} - interval '1 day', ${now} - interval '90 days' ${accounts()}`,
  },
  {
    // A primary address per account, verified for nine in ten; one in ten has a second, unverified one.
    table: 'portcullis_email_addresses',
    perAccount: 1.1,
    insert: `insert into portcullis_email_addresses (account_id, address, verified_at, is_primary, created_at)
      select 'account-' || i, case when n = 1 then 'Person.' || i || '@mail.scale.example'
                                   else 'pending.' || i || '@other.scale.example' end,
             case when n = 1 and i % 10 <> 0 then ${now} - interval '300 days' else null end,
             n = 1, ${now} - interval '400 days'
        ${accounts('n = 1 or i % 10 = 4', 'cross join generate_series(1, 2) as n')}`,
  },
  {
    // Three per account; session 1 of every account carries a provider sign-in's subject and session tags.
    // One in a hundred accounts has an idle-expired session 3 (what a sweep finds between two runs).
    table: 'portcullis_sessions',
    perAccount: 3,
    insert: `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
        idle_expires_at, absolute_expires_at, user_agent, client_address)
      select ${hex(`'session-' || i || '-' || s`, 64)},
             case when s = 1 then ${hex(`'sub-' || i`, 11)} || ${hex(`'sid-' || i`, 11)} || ${hex(`'handle-' || i || '-' || s`, 22)}
                  else ${hex(`'handle-' || i || '-' || s`, 22)} end,
             'account-' || i, 1, ${now} - interval '2 days', ${now} - interval '1 minute',
             case when s = 3 and i % 100 = 0 then ${now} - interval '1 hour' - (i % 3600) * interval '1 second'
                  else ${now} + interval '1 day' + (i % 86400) * interval '1 second' end,
             ${now} + interval '29 days', 'Mozilla/5.0 (scale fixture)', '192.0.2.' || (i % 250)
        ${accounts('true', 'cross join generate_series(1, 3) as s')}`,
  },
  {
    table: 'portcullis_oauth_links',
    perAccount: 1,
    insert: `insert into portcullis_oauth_links (provider_account_id, account_id, provider, issuer, subject, grant_scopes,
        grant_expires_at, linked_at, updated_at)
      select 'provider-account-' || i, 'account-' || i, 'scale-idp', 'https://idp.scale.example', 'sub-' || i,
             array['openid', 'email'], null, ${now} - interval '300 days', ${now} - interval '1 day' ${accounts()}`,
  },
  {
    // Retained tokens: every link keeps a sealed token set (the filler envelope, see `FillScaleFixtureOptions`).
    table: 'portcullis_oauth_token_vault',
    perAccount: 1,
    insert: `insert into portcullis_oauth_token_vault (provider_account_id, provider, client_id, version, envelope, scopes, expires_at)
      select 'provider-account-' || i, 'scale-idp', 'scale-client', 1, $4::text, array['openid', 'email'],
             ${now} + interval '1 hour' ${accounts()}`,
  },
  {
    table: 'portcullis_api_keys',
    perAccount: 1,
    insert: `insert into portcullis_api_keys (key_id, owner_id, owner_kind, digest, pepper_version, restrictions, label,
        created_at, expires_at)
      select ${hex(`'key-' || i`, 16)}, 'account-' || i, 'user',
             ${sha256(`'key-digest-' || i`)}, 'pepper-1', '{"scopes":["read"]}'::jsonb, 'scale key',
             ${now} - interval '30 days', ${now} + interval '335 days' ${accounts()}`,
  },
  {
    table: 'portcullis_refresh_families',
    perAccount: 1,
    insert: `insert into portcullis_refresh_families (family_id, account_id, security_epoch, created_at, absolute_expires_at)
      select 'family-' || i, 'account-' || i, 1, ${now} - interval '1 day',
             ${now} + interval '29 days' + (i % 86400) * interval '1 second' ${accounts()}`,
  },
  {
    table: 'portcullis_refresh_tokens',
    perAccount: 1,
    insert: `insert into portcullis_refresh_tokens (digest, family_id, issued_at, expires_at)
      select ${hex(`'refresh-' || i`, 64)}, 'family-' || i, ${now} - interval '10 minutes',
             ${now} + interval '13 days' ${accounts()}`,
  },
  {
    // Passkeys and TOTP for a tenth of the accounts (account numbers divisible by 10).
    table: 'portcullis_passkeys',
    perAccount: 0.1,
    insert: `insert into portcullis_passkeys (credential_id, account_id, public_key, counter, transports, device_type,
        backed_up, name, created_at)
      select ${hex(`'credential-' || i`, 43)}, 'account-' || i,
             ${sha256(`'public-key-' || i`)} || ${sha256(`'public-key-2-' || i`)} || ${sha256(`'public-key-3-' || i`)},
             0, array['internal', 'hybrid'], 'multiDevice', true, 'Scale passkey', ${now} - interval '100 days'
        ${accounts('i % 10 = 0')}`,
  },
  {
    table: 'portcullis_totp_enrollments',
    perAccount: 0.1,
    insert: `insert into portcullis_totp_enrollments (account_id, sealed_secret, status, created_at, enabled_at, last_used_step)
      select 'account-' || i, $4::text, 'enabled', ${now} - interval '100 days', ${now} - interval '100 days', null
        ${accounts('i % 10 = 0')}`,
  },
  {
    table: 'portcullis_recovery_codes',
    perAccount: 1,
    insert: `insert into portcullis_recovery_codes (account_id, digest, created_at)
      select 'account-' || i, 'v1:' || ${hex(`'recovery-' || i || '-' || c`, 43)}, ${now} - interval '100 days'
        ${accounts('i % 10 = 0', 'cross join generate_series(1, 10) as c')}`,
  },
  {
    // Live step-up credentials for a tenth of the accounts, bound to the account's first session.
    table: 'portcullis_step_up_credentials',
    perAccount: 0.1,
    insert: `insert into portcullis_step_up_credentials (digest, account_id, purpose, security_epoch, session_digest,
        issued_at, authenticated_at, expires_at)
      select ${hex(`'step-up-' || i`, 43)}, 'account-' || i, 'scale-purpose', 1,
             ${hex(`'step-up-session-' || i`, 43)}, ${now} - interval '1 minute', ${now} - interval '1 minute',
             ${now} + interval '4 minutes' + (i % 600) * interval '1 second' ${accounts('i % 10 = 1')}`,
  },
  {
    // One password-attempt window per account; one in a hundred already past its reset.
    table: 'portcullis_rate_limits',
    perAccount: 1,
    insert: `insert into portcullis_rate_limits (limit_key, attempts, reset_at)
      select 'password:user-' || i || '@scale.example', 1 + i % 4,
             case when i % 100 = 0 then ${now} - interval '1 minute' else ${now} + interval '15 minutes' end
        ${accounts()}`,
  },
  {
    table: 'portcullis_passkey_challenges',
    perAccount: 0.01,
    insert: `insert into portcullis_passkey_challenges (challenge_digest, binding_digest, ceremony, account_id,
        session_digest, purpose, created_at, expires_at)
      select ${hex(`'challenge-' || i`, 43)}, ${hex(`'challenge-binding-' || i`, 43)},
             'authentication', null, null, null, ${now} - interval '1 minute', ${now} + interval '4 minutes'
        ${accounts('i % 100 = 3')}`,
  },
  {
    // Sign-ins in flight: one in a hundred accounts, half of them already expired.
    table: 'portcullis_oauth_transactions',
    perAccount: 0.01,
    insert: `insert into portcullis_oauth_transactions (state_digest, binding_digest, provider, operation, redirect_uri,
        return_to, requested_scopes, pkce_verifier_envelope, nonce_envelope, expected_issuer, created_at, expires_at)
      select ${sha256(`'state-' || i`)}, ${sha256(`'binding-' || i`)}, 'scale-idp', 'login',
             'https://app.scale.example/callback', '/', array['openid'], $4::text, $4::text, 'https://idp.scale.example',
             ${now} - (i % 1200) * interval '1 second', ${now} - (i % 1200) * interval '1 second' + interval '10 minutes'
        ${accounts('i % 100 = 5')}`,
  },
  {
    table: 'portcullis_local_account_invites',
    perAccount: 0.001,
    insert: `insert into portcullis_local_account_invites (digest, created_at, expires_at)
      select ${hex(`'invite-' || i`, 64)}, ${now} - interval '1 day', ${now} + interval '6 days'
        ${accounts('i % 1000 = 9')}`,
  },
  {
    // Revocations that failed upstream and wait for the drain job: one in a hundred accounts.
    table: 'portcullis_oauth_revocation_retries',
    perAccount: 0.01,
    insert: `insert into portcullis_oauth_revocation_retries (retry_id, provider, client_id, provider_account_id,
        failed_token_types, occurred_at, envelope)
      select 'retry-' || i, 'scale-idp', 'scale-client', 'provider-account-' || i, array['refresh_token'],
             ${now} - (i % 86400) * interval '1 second', $4::text ${accounts('i % 100 = 7')}`,
  },
  {
    // One-time codes: a live password-reset code for one account in ten (one in a hundred of them expired,
    // the sweep's work) and a sign-in code to an address without an account per hundred accounts.
    table: 'portcullis_one_time_codes',
    perAccount: 0.11,
    insert: `insert into portcullis_one_time_codes (id, purpose, account_id, address, digest, key_version,
        attempts, max_attempts, created_at, expires_at, payload)
      select ${hex(`'code-' || i`, 22)}, 'password-reset', 'account-' || i, 'Person.' || i || '@mail.scale.example',
             ${sha256(`'code-digest-' || i`)}, 1, 0, 5, ${now} - interval '10 minutes',
             ${now} + case when i % 1000 = 3 then interval '-1 minute' else interval '50 minutes' end, null
        ${accounts('i % 10 = 3')}
      union all
      select ${hex(`'code-unknown-' || i`, 22)}, 'sign-in', null, 'nobody.' || i || '@other.scale.example',
             ${sha256(`'code-unknown-digest-' || i`)}, 1, 0, 5, ${now} - interval '1 minute',
             ${now} + interval '9 minutes', null
        ${accounts('i % 100 = 5')}`,
  },
  {
    // The security log: ten entries per account (10^7 at 10^6 accounts) spread over the 180 days of
    // retention: four sign-ins, three sessions created, two failed sign-ins, a password change.
    table: 'portcullis_security_log',
    perAccount: 10,
    insert: `insert into portcullis_security_log (occurred_at, id, type, account_id, reason, session_handle,
        client_address_hash, browser, os, platform, details)
      select ${now} - ((i * 7919 + n * 104729) % 15552000) * interval '1 second', ${hex(`'log-' || i || '-' || n`, 32)},
             case when n <= 4 then 'login.succeeded' when n <= 7 then 'session.created'
                  when n <= 9 then 'login.failed' else 'password.changed' end,
             'account-' || i, case when n in (8, 9) then 'bad_password' end,
             case when n between 5 and 7 then ${hex(`'handle-' || i || '-' || (n - 4)`, 22)} end,
             'v1.' || ${hex(`'address-' || (i % 5000)`, 43)}, 'Chrome 131', 'Windows 10', 'desktop', '{}'::jsonb
        ${accounts('true', 'cross join generate_series(1, 10) as n')}`,
  },
  {
    // One organization per ten accounts (10^5 at 10^6), founded by the first of its ten.
    table: 'portcullis_organizations',
    perAccount: 0.1,
    insert: `insert into portcullis_organizations (organization_id, name, created_at, updated_at)
      select 'org-' || i, 'Organization ' || i, ${now} - interval '300 days', ${now} - interval '3 days'
        ${accounts('i % 10 = 1')}`,
  },
  {
    // Every account belongs to the organization of its ten (10^6 memberships at 10^6): the founder owns
    // it, the second is an admin, the others are members; one account in a hundred also joined the
    // organization before its own (a second membership).
    table: 'portcullis_memberships',
    perAccount: 1.01,
    insert: `insert into portcullis_memberships (organization_id, account_id, role, joined_at, updated_at)
      select 'org-' || (((i - 1) / 10) * 10 + 1), 'account-' || i,
             case i % 10 when 1 then 'owner' when 2 then 'admin' else 'member' end,
             ${now} - interval '200 days', ${now} - interval '200 days'
        ${accounts()}
      union all
      select 'org-' || (((i - 1) / 10) * 10 - 9), 'account-' || i, 'member', ${now} - interval '100 days', ${now} - interval '100 days'
        ${accounts('i % 100 = 55')}`,
  },
  {
    // A pending invitation per organization, sent by its owner, half of them expired.
    table: 'portcullis_invitations',
    perAccount: 0.1,
    insert: `insert into portcullis_invitations (invitation_id, organization_id, address, role, inviter_account_id,
        digest, key_version, created_at, expires_at)
      select ${hex(`'invitation-' || i`, 22)}, 'org-' || i, 'invitee.' || i || '@invited.scale.example', 'member',
             'account-' || i, ${sha256(`'invitation-digest-' || i`)}, 1, ${now} - interval '3 days',
             ${now} + case when i % 20 = 1 then interval '-1 day' else interval '4 days' end
        ${accounts('i % 10 = 1')}`,
  },
  {
    // One account in ten asks to join another organization (the one before its own; the first ten ask
    // the second's): a pending request to join, resting on a verified address of its own.
    table: 'portcullis_join_requests',
    perAccount: 0.1,
    insert: `insert into portcullis_join_requests (request_id, organization_id, account_id, address, created_at)
      select ${hex(`'join-request-' || i`, 22)},
             'org-' || case when i <= 10 then 11 else ((i - 1) / 10) * 10 - 9 end,
             'account-' || i, 'asker.' || i || '@asking.scale.example', ${now} - interval '2 days'
        ${accounts('i % 10 = 6')}`,
  },
])

/**
 * The authorization server's entries (oidc-provider's models in one table): one in ten accounts connected
 * an MCP client, so it holds a `Grant` row and that grant's current refresh token; one in a hundred has an
 * interaction in flight.
 */
export const SCALE_GRANT_TABLES: readonly ScaleTable[] = Object.freeze([
  {
    table: 'portcullis_oauth_server_entries',
    perAccount: 0.21,
    insert: `insert into portcullis_oauth_server_entries (model, id, payload, grant_id, uid, user_code, account_id,
        client_id, security_epoch, consumed_at, expires_at, created_at, last_used_at)
      select 'Grant', 'grant-' || i,
             jsonb_build_object('kind', 'Grant', 'jti', 'grant-' || i, 'accountId', 'account-' || i,
               'clientId', 'https://client.scale.example/' || (i % 50) || '.json',
               'openid', jsonb_build_object('scope', 'resources:read'),
               'resources', jsonb_build_object('https://app.scale.example/mcp', 'resources:read')),
             'grant-' || i, null, null, 'account-' || i, 'https://client.scale.example/' || (i % 50) || '.json', 1,
             null::timestamptz, ${now} + interval '300 days', ${now} - (i % 86400) * interval '1 second', ${now} - interval '1 hour'
        ${accounts('i % 10 = 1')}
      union all
      select 'RefreshToken', ${hex(`'refresh-entry-' || i`, 43)},
             jsonb_build_object('kind', 'RefreshToken', 'jti', ${hex(`'refresh-entry-' || i`, 43)}, 'grantId', 'grant-' || i,
               'accountId', 'account-' || i, 'clientId', 'https://client.scale.example/' || (i % 50) || '.json'),
             'grant-' || i, null, null, null, null, null, null, ${now} + interval '29 days', ${now} - interval '1 hour', null
        ${accounts('i % 10 = 1')}
      union all
      select 'Interaction', 'interaction-' || i,
             jsonb_build_object('kind', 'Interaction', 'jti', 'interaction-' || i, 'uid', 'uid-' || i),
             null, 'uid-' || i, null, null, null, null, null, ${now} + interval '5 minutes', ${now}, null
        ${accounts('i % 100 = 2')}`,
  },
])
