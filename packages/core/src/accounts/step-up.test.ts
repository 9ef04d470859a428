import { describe, expect, it } from 'vitest'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import { StepUpService } from '../step-up/service.js'
import { consumeStepUp } from './step-up.js'

const SESSION = { accountId: 'acct-1', securityEpoch: 3, sessionHandle: 'session-handle-1' }
const PURPOSE = 'email-change'

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: unknown }) => error.code,
  )

describe('consumeStepUp', () => {
  it('answers step-up.required, not invalid_input, for a missing or malformed credential, and spends nothing', async () => {
    const service = new StepUpService({ store: new MemoryStepUpStore() })
    const genuine = (
      await service.issue({ ...SESSION, sessionBinding: SESSION.sessionHandle, purpose: PURPOSE })
    ).reveal()
    const presented: unknown[] = ['', '   ', 'short', `${genuine}x`, undefined, null, 42, { token: genuine }]
    for (const token of presented) {
      expect(await codeOf(consumeStepUp(service, SESSION, token as string, PURPOSE))).toBe('step-up.required')
    }
    // The genuine credential was not touched by the refused attempts.
    expect(await codeOf(consumeStepUp(service, SESSION, genuine, PURPOSE))).toBe('resolved')
    // One use only.
    expect(await codeOf(consumeStepUp(service, SESSION, genuine, PURPOSE))).toBe('step-up.required')
  })

  it('answers step-up.required for a credential of another purpose or session, and burns it', async () => {
    const service = new StepUpService({ store: new MemoryStepUpStore() })
    const issue = (purpose: string) =>
      service.issue({ ...SESSION, sessionBinding: SESSION.sessionHandle, purpose }).then((c) => c.reveal())
    const other = await issue('delete-account')
    expect(await codeOf(consumeStepUp(service, SESSION, other, PURPOSE))).toBe('step-up.required')
    const foreign = await issue(PURPOSE)
    const elsewhere = { ...SESSION, sessionHandle: 'session-handle-2' }
    expect(await codeOf(consumeStepUp(service, elsewhere, foreign, PURPOSE))).toBe('step-up.required')
    expect(await codeOf(consumeStepUp(service, SESSION, foreign, PURPOSE))).toBe('step-up.required')
  })

  it('answers step-up.unavailable when the store fails', async () => {
    const store = new MemoryStepUpStore()
    const service = new StepUpService({ store })
    const token = (
      await service.issue({ ...SESSION, sessionBinding: SESSION.sessionHandle, purpose: PURPOSE })
    ).reveal()
    store.take = async () => {
      throw new Error('connection refused')
    }
    expect(await codeOf(consumeStepUp(service, SESSION, token, PURPOSE))).toBe('step-up.unavailable')
  })
})
