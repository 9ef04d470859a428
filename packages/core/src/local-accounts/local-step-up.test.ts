import { describe, expect, it } from 'vitest'
import { cookiePair, localFixture, requestSource } from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import type { AuthenticationEvidence } from '../authentication/principal.js'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import { StepUpService } from '../step-up/service.js'
import type { SessionSignIn } from './sign-in.js'

const credentials = { username: 'alice', password: 'correct horse battery staple' }

async function evidenceOf(local: Awaited<ReturnType<typeof localFixture>>['local'], signIn: SessionSignIn) {
  const outcome = (await local.mechanisms[0]?.authenticate(
    requestSource({ cookie: cookiePair(signIn.setCookie) }),
  )) as AuthenticationOutcome
  if (outcome.kind !== 'authenticated') throw new Error('not signed in')
  return [outcome.evidence] as readonly AuthenticationEvidence[]
}

describe('step-up credentials of local sign-ins', () => {
  it('are bound to the session and the epoch, consumed once, and reported', async () => {
    const { local, events, clock } = await localFixture()
    const service = new StepUpService({ store: new MemoryStepUpStore(), clock: () => new Date(clock()) })
    const stepUp = local.stepUp(service)
    const { accountId } = await local.register(credentials)
    const mine = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const other = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const evidence = await evidenceOf(local, mine)
    const consume = async (token: string, from: readonly AuthenticationEvidence[]) =>
      stepUp.verifier.consume({
        token,
        purpose: 'delete-account',
        accountId,
        principal: { id: accountId, kind: 'user' },
        evidence: from,
      })

    const issued = await stepUp.issue({ accountId, purpose: 'delete-account', evidence })
    expect(await consume(issued.reveal(), evidence)).toEqual({ kind: 'consumed' })
    expect((await consume(issued.reveal(), evidence)).kind).toBe('rejected')

    const stolen = await stepUp.issue({ accountId, purpose: 'delete-account', evidence })
    expect((await consume(stolen.reveal(), await evidenceOf(local, other))).kind).toBe('rejected')

    const beforeChange = await stepUp.issue({ accountId, purpose: 'delete-account', evidence })
    await local.signOutEverywhere(accountId)
    const again = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect((await consume(beforeChange.reveal(), await evidenceOf(local, again))).kind).toBe('rejected')

    expect(events.filter((event) => event.type.startsWith('step_up.')).map((event) => event.type)).toEqual([
      'step_up.issued',
      'step_up.consumed',
      'step_up.issued',
      'step_up.issued',
    ])
    expect(JSON.stringify(events)).not.toContain(issued.reveal())
    await expect(stepUp.issue({ accountId, purpose: 'x', evidence: [] })).rejects.toMatchObject({
      code: 'step-up.invalid_input',
    })
  })

  it('accept a credential the step-up service bound to the same session handle (password, passkey and provider step-ups do so), and no other', async () => {
    const { local, clock } = await localFixture()
    const service = new StepUpService({ store: new MemoryStepUpStore(), clock: () => new Date(clock()) })
    const stepUp = local.stepUp(service)
    const { accountId } = await local.register(credentials)
    const signIn = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const evidence = await evidenceOf(local, signIn)
    const handle = local.credentialsOf(evidence).sessionHandle as string
    const consume = (token: string) =>
      stepUp.verifier.consume({
        token,
        purpose: 'delete-account',
        accountId,
        principal: { id: accountId, kind: 'user' },
        evidence,
      })
    const bound = (sessionBinding: string) =>
      service.issue({ accountId, purpose: 'delete-account', securityEpoch: 1, sessionBinding })

    expect(await consume((await bound(handle)).reveal())).toEqual({ kind: 'consumed' })
    expect((await consume((await bound(`${handle}x`)).reveal())).kind).toBe('rejected')
  })
})
