import { randomUUID } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { CodeKeyRing } from './code-keys.js'
import { generateFlowId } from './generate.js'
import { MemoryOneTimeCodeStore } from './memory-store.js'
import type { CodePurpose, NewOneTimeCode } from './port.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const T0 = new Date('2031-01-02T03:04:05.000Z')
const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(5) })

function newCode(overrides: Partial<NewOneTimeCode> & { plain?: string } = {}): NewOneTimeCode {
  const id = overrides.id ?? generateFlowId()
  const purpose: CodePurpose = overrides.purpose ?? 'password-reset'
  const { keyVersion, digest } = ring.issueDigest({ id, purpose, code: overrides.plain ?? '123456' })
  return {
    id,
    purpose,
    accountId: 'account-1',
    address: 'ada@example.com',
    digest,
    keyVersion,
    maxAttempts: 5,
    createdAt: T0,
    expiresAt: new Date(T0.getTime() + 3_600_000),
    payload: null,
    ...overrides,
  }
}

function entry(): OutboxEntry {
  return {
    id: randomUUID(),
    kind: 'password-reset',
    accountId: 'account-1',
    envelope: 'sealed',
    createdAt: T0,
  }
}

const consume = (store: MemoryOneTimeCodeStore, code: NewOneTimeCode, plain = '123456') =>
  store.consume({
    id: code.id,
    purpose: code.purpose,
    candidates: ring.candidates({ id: code.id, purpose: code.purpose, code: plain }),
    now: T0,
  })

describe('MemoryOneTimeCodeStore', () => {
  it('writes the outbox entries of an issue into its outbox', async () => {
    const written: OutboxEntry[][] = []
    const store = new MemoryOneTimeCodeStore({
      outbox: { enqueue: async (entries) => void written.push([...entries]) },
    })
    const mail = entry()
    await store.issue({ code: newCode(), outbox: [mail] })
    expect(written).toEqual([[mail]])
  })

  it('writes through prepareWrite in the same synchronous step when the outbox offers it', async () => {
    const written: OutboxEntry[] = []
    let enqueued = 0
    const store = new MemoryOneTimeCodeStore({
      outbox: {
        enqueue: async () => {
          enqueued += 1
        },
        prepareWrite: (entries) => () => void written.push(...entries),
      },
    })
    const mail = entry()
    const issued = store.issue({ code: newCode(), outbox: [mail] })
    expect(written).toEqual([mail])
    await issued
    expect(enqueued).toBe(0)
    const refusing = new MemoryOneTimeCodeStore({
      outbox: {
        enqueue: async () => {},
        prepareWrite: () => {
          throw new Error('duplicate entry')
        },
      },
    })
    const code = newCode()
    await expect(refusing.issue({ code, outbox: [entry()] })).rejects.toThrow('duplicate entry')
    expect((await consume(refusing, code)).outcome).toBe('not-found')
  })

  it('stores no code when the outbox refuses its entries (both or neither)', async () => {
    const store = new MemoryOneTimeCodeStore({
      outbox: {
        enqueue: async () => {
          throw new Error('outbox down')
        },
      },
    })
    const code = newCode()
    await expect(store.issue({ code, outbox: [entry()] })).rejects.toThrow('outbox down')
    expect((await consume(store, code)).outcome).toBe('not-found')
  })

  it('refuses outbox entries when it was given no outbox, and stores nothing', async () => {
    const store = new MemoryOneTimeCodeStore()
    const code = newCode()
    await expect(store.issue({ code, outbox: [entry()] })).rejects.toMatchObject({
      code: 'codes.invalid_input',
    })
    expect((await consume(store, code)).outcome).toBe('not-found')
  })

  it('is full at its capacity once no code has expired, and makes room by purging expired ones', async () => {
    const store = new MemoryOneTimeCodeStore({ capacity: 2 })
    const short = newCode({ expiresAt: new Date(T0.getTime() + 1000), accountId: 'a' })
    await store.issue({ code: short })
    await store.issue({ code: newCode({ accountId: 'b' }) })
    await expect(store.issue({ code: newCode({ accountId: 'c' }) })).rejects.toMatchObject({
      code: 'codes.unavailable',
    })
    await store.issue({ code: newCode({ accountId: 'c', createdAt: new Date(T0.getTime() + 1000) }) })
    expect((await consume(store, short)).outcome).toBe('not-found')
  })

  it('loses an account’s codes with the account when cascaded from MemoryAccountStore', async () => {
    const codes = new MemoryOneTimeCodeStore()
    const accounts = new MemoryAccountStore({ cascade: [codes] })
    const accountId = randomUUID()
    const created = await accounts.createAccount({ accountId, username: 'ada', passwordHash: HASH, now: T0 })
    expect(created.outcome).toBe('created')
    const mine = newCode({ accountId })
    const unknown = newCode({ accountId: null, address: 'nobody@example.com' })
    await codes.issue({ code: mine })
    await codes.issue({ code: unknown })
    expect((await accounts.deleteAccount({ accountId, now: T0 })).outcome).toBe('deleted')
    expect((await consume(codes, mine)).outcome).toBe('not-found')
    expect((await consume(codes, unknown)).outcome).toBe('consumed')
  })

  it('shows a count, never digests, through inspect', async () => {
    const store = new MemoryOneTimeCodeStore()
    const code = newCode()
    await store.issue({ code })
    expect(inspect(store)).toBe('MemoryOneTimeCodeStore { codes: 1 }')
    expect(inspect(store, { showHidden: true })).not.toContain(code.digest)
  })
})
