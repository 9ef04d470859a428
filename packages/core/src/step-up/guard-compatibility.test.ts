import { describe, expect, it } from 'vitest'
import { stepUpVerifierFor } from '../authorization/index.js'
import { MemoryStepUpStore } from './memory-store.js'
import { StepUpService } from './service.js'

const principal = { id: 'account-1', kind: 'user' as const }

describe('StepUpService behind the requiresStepUp verifier port', () => {
  it('plugs into stepUpVerifierFor and consumes exactly once with the request binding', async () => {
    const service = new StepUpService({ store: new MemoryStepUpStore() })
    const verifier = stepUpVerifierFor(service, () => ({ securityEpoch: 2, sessionBinding: 'session-1' }))
    const token = (
      await service.issue({
        accountId: 'account-1',
        purpose: 'OAuth-Link',
        securityEpoch: 2,
        sessionBinding: 'session-1',
      })
    ).reveal()
    const request = { token, purpose: 'OAuth-Link', accountId: 'account-1', principal, evidence: [] }
    expect((await verifier.consume(request)).kind).toBe('consumed')
    expect((await verifier.consume(request)).kind).toBe('rejected')
  })

  it('rejects a credential presented for another purpose through the port, and burns it', async () => {
    const service = new StepUpService({ store: new MemoryStepUpStore() })
    const verifier = stepUpVerifierFor(service, () => ({ securityEpoch: 0, sessionBinding: 'session-1' }))
    const issued = {
      accountId: 'account-1',
      purpose: 'oauth-link',
      securityEpoch: 0,
      sessionBinding: 'session-1',
    }
    const token = (await service.issue(issued)).reveal()
    const base = { token, accountId: 'account-1', principal, evidence: [] }
    expect(await verifier.consume({ ...base, purpose: 'oauth-unlink' })).toMatchObject({ kind: 'rejected' })
    expect(await verifier.consume({ ...base, purpose: 'oauth-link' })).toMatchObject({ kind: 'rejected' })
  })
})
