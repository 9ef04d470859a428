// The one-time code store, as docs/codes.md shows it: a versioned code key loaded from the environment,
// a code issued with the message that carries it in one step, the code consumed (once, and by one of two
// instances racing), wrong codes counted to the limit, a key rotation, and the maintenance calls.
import { randomBytes } from 'node:crypto'
import { assertOneTimeCodeStoreConformance } from '@portcullis/conformance/codes'
import {
  CodeKeyRing,
  type CodePurpose,
  generateCode,
  generateFlowId,
  loadCodeKey,
  MemoryOneTimeCodeStore,
  type OneTimeCodeStore,
} from '@portcullis/core/codes'
import { MemoryMailOutbox, openOutboxMessage, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresOneTimeCodeStore,
  sweepExpired,
} from '@portcullis/postgres'
import { afterAll, expect, it } from 'vitest'

const env: Record<string, string> = {
  CODE_KEY_1: randomBytes(32).toString('base64url'),
  CODE_KEY_2: randomBytes(32).toString('base64url'),
}
const first = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
const second = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(first)
afterAll(async () => {
  await first.close()
  await second.close()
})
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})

// #region keys
// At least 32 random bytes per version, from the environment or a secret store, never from the code.
const codeKeys = new CodeKeyRing(loadCodeKey({ version: 1, material: env.CODE_KEY_1, encoding: 'base64url' }))
// #endregion keys

// #region issue
async function sendResetCode(
  codes: OneTimeCodeStore,
  person: { accountId: string | null; address: string },
  now: Date,
): Promise<{ flow: string }> {
  const id = generateFlowId() // 128 random bits: the handle a link and the confirmation page carry
  const code = generateCode({ length: 6 }) // six digits, drawn without modulo bias
  const purpose: CodePurpose = 'password-reset'
  const message = await sealOutboxMessage(
    protector,
    { kind: 'password-reset', to: { address: person.address }, locale: 'en', code, validForMinutes: 60 },
    { accountId: person.accountId, now },
  )
  await codes.issue({
    code: {
      id,
      purpose,
      accountId: person.accountId,
      address: person.address,
      ...codeKeys.issueDigest({ id, purpose, code }), // { keyVersion, digest }: the code itself is not stored
      maxAttempts: 5,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60 * 60_000),
      payload: null,
    },
    // The mail is written with the code (same transaction): both or neither. Older reset codes of the
    // account are superseded in that transaction too.
    outbox: [message],
  })
  return { flow: id }
}
// #endregion issue

// #region consume
async function confirmReset(codes: OneTimeCodeStore, flow: string, typed: string) {
  const purpose: CodePurpose = 'password-reset'
  const answer = await codes.consume({
    id: flow,
    purpose,
    // One digest per key version held, so codes issued before a rotation keep working.
    candidates: codeKeys.candidates({ id: flow, purpose, code: typed.trim() }),
    now: new Date(),
  })
  switch (answer.outcome) {
    case 'consumed':
      return { ok: true as const, accountId: answer.code.accountId }
    case 'mismatch':
      return { ok: false as const, attemptsLeft: answer.attemptsLeft }
    default:
      // 'exhausted', 'expired', 'not-found': ask for a new code; say nothing more.
      return { ok: false as const, attemptsLeft: 0 }
  }
}
// #endregion consume

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

async function account(): Promise<string> {
  const accountId = `docs-codes-${generateFlowId()}`
  const created = await new PostgresAccountStore({ client: first }).createAccount({
    accountId,
    username: accountId.toLowerCase(),
    passwordHash: HASH,
    now: new Date(),
  })
  expect(created.outcome).toBe('created')
  return accountId
}

it('issues a code with its mail in one step and consumes it once (memory store)', async () => {
  const outbox = new MemoryMailOutbox()
  // #region memory
  const codes = new MemoryOneTimeCodeStore({ outbox })
  // #endregion memory
  const sent: string[] = []
  const { flow } = await sendResetCode(codes, { accountId: null, address: 'ada@example.com' }, new Date())
  const [entry] = outbox.pending()
  expect(entry?.kind).toBe('password-reset')
  const message = await openOutboxMessage(protector, entry as NonNullable<typeof entry>)
  if (message.kind === 'password-reset') sent.push(message.code)
  // The outbox holds the code sealed only (base64url text may hold six digits by chance; never the code's).
  expect(sent[0]).toMatch(/^\d{6}$/)
  expect(entry?.envelope).not.toContain(sent[0])
  expect(await confirmReset(codes, flow, '000000')).toEqual({ ok: false, attemptsLeft: 4 })
  expect(await confirmReset(codes, flow, ` ${sent[0]} `)).toEqual({ ok: true, accountId: null })
  expect(await confirmReset(codes, flow, sent[0] ?? '')).toEqual({ ok: false, attemptsLeft: 0 })
})

it('on Postgres, of two instances consuming one code exactly one wins; rotation keeps old codes', async () => {
  // #region postgres
  const codes = new PostgresOneTimeCodeStore({ client: first })
  const otherInstance = new PostgresOneTimeCodeStore({ client: second })
  // #endregion postgres
  const accountId = await account()
  const id = generateFlowId()
  const now = new Date()
  const code = generateCode({ length: 8 })
  await codes.issue({
    code: {
      id,
      purpose: 'sign-in',
      accountId,
      address: 'ada@example.com',
      ...codeKeys.issueDigest({ id, purpose: 'sign-in', code }),
      maxAttempts: 5,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 10 * 60_000),
      payload: null,
    },
  })
  // #region rotate
  // Version 2 becomes active; version 1 is retained until the last code issued under it has expired.
  const rotated = new CodeKeyRing(
    loadCodeKey({ version: 2, material: env.CODE_KEY_2, encoding: 'base64url' }),
    [loadCodeKey({ version: 1, material: env.CODE_KEY_1, encoding: 'base64url' })],
  )
  // #endregion rotate
  const request = {
    id,
    purpose: 'sign-in' as const,
    candidates: rotated.candidates({ id, purpose: 'sign-in', code }),
    now,
  }
  const [a, b] = await Promise.all([codes.consume(request), otherInstance.consume(request)])
  expect([a.outcome, b.outcome].sort()).toEqual(['consumed', 'not-found'])

  // #region maintenance
  // After a password reset (or any epoch change), the account's other live codes go:
  await codes.revoke({ accountId, purposes: ['password-reset', 'sign-in'] })
  // Expired codes are refused already; the sweep reclaims their rows in bounded batches, with the
  // other expiring tables (schedule it on every instance; the CLI's `sweep` runs the same):
  await sweepExpired(first, { batchSize: 500, maxBatches: 10 })
  // #endregion maintenance
})

it('the memory store passes the conformance suite', async () => {
  // #region conformance
  // Every case runs on a fresh fixture; `peer` (a second instance over the same data) makes the races
  // real, `deleteAccount` and `storedOutboxIds` turn on the cascade and outbox cases.
  await assertOneTimeCodeStoreConformance(() => ({
    store: new MemoryOneTimeCodeStore(),
    createAccount: async () => generateFlowId(),
  }))
  // #endregion conformance
})
