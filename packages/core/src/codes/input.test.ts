import { describe, expect, it } from 'vitest'
import { OneTimeCodeError } from './errors.js'
import { validateConsumeRequest, validateIssueRequest } from './input.js'

const SECRET = 'Zs3cr3tV4lu3Zs3cr3tV4lu3Zs3cr3tV4lu3Zs3cr3t'

function refusal(run: () => unknown): OneTimeCodeError {
  try {
    run()
  } catch (error) {
    if (error instanceof OneTimeCodeError) return error
    throw error
  }
  throw new Error('accepted')
}

const code = {
  id: 'abcdefghijklmnopqrstuv',
  purpose: 'sign-in',
  accountId: null,
  address: 'ada@example.com',
  digest: 'A'.repeat(43),
  keyVersion: 1,
  maxAttempts: 5,
  createdAt: new Date('2031-01-01T00:00:00Z'),
  expiresAt: new Date('2031-01-01T00:10:00Z'),
  payload: null,
}

describe('code request validation', () => {
  it('names the field at fault and never echoes its value (a digest, an address, an id)', () => {
    for (const fields of [
      { digest: `${SECRET}!` },
      { address: `${SECRET}\r\n@example.com` },
      { id: `${SECRET}$` },
      { accountId: ` ${SECRET}` },
      { payload: { secret: SECRET } },
    ]) {
      const error = refusal(() => validateIssueRequest({ code: { ...code, ...fields } }))
      expect(error.code).toBe('codes.invalid_input')
      expect(error.errorClass).toBe('invalid-input')
      expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(SECRET)
      expect(error.message).toMatch(new RegExp(`^code\\.${Object.keys(fields)[0]}`))
    }
    const consume = refusal(() =>
      validateConsumeRequest({
        id: code.id,
        purpose: 'sign-in',
        candidates: [{ keyVersion: 1, digest: SECRET.slice(0, 40) }],
        now: new Date(),
      }),
    )
    expect(consume.message).not.toContain(SECRET.slice(0, 40))
  })

  it('copies what it accepts, so a caller changing its object afterwards changes nothing stored', () => {
    const mutable = { ...code, createdAt: new Date(code.createdAt) }
    const valid = validateIssueRequest({ code: mutable })
    mutable.createdAt.setUTCFullYear(2040)
    mutable.address = 'mallory@example.com'
    expect(valid.code.createdAt.toISOString()).toBe('2031-01-01T00:00:00.000Z')
    expect(valid.code.address).toBe('ada@example.com')
    expect(Object.isFrozen(valid.code)).toBe(true)
    expect(valid.supersede).toBe(true)
    expect(valid.outbox).toEqual([])
  })
})
