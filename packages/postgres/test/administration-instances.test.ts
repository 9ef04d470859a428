import { randomBytes } from 'node:crypto'
import { AccountService } from '@portcullis/core/accounts'
import { AccountAdministration, ADMINISTRATION_STEP_UP_PURPOSE } from '@portcullis/core/administration'
import { isPortcullisError } from '@portcullis/core/errors'
import type { LocalAccounts, SessionSignIn } from '@portcullis/core/local-accounts'
import { StepUpService } from '@portcullis/core/step-up'
import { describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  type PostgresClient,
  PostgresSecurityLog,
  PostgresStepUpStore,
} from '../src/index.js'
import { instancesDatabase, postgresLocalAccounts, sessionOutcome, within } from './support/instances.js'

/**
 * Two app instances on one database, each with its own pool and revocation listener and a session cache
 * that trusts notices for up to 60 s: an administrator disables an account on A while the account signs
 * in on B. Whichever wins, B never keeps a working session of the disabled account for longer than the
 * notice takes to arrive (printed; the 100 ms bound is the revocation benchmark's budget).
 */
const db = await instancesDatabase()

const PASSWORD = 'correct horse battery staple'

async function instance(client: PostgresClient) {
  const local = postgresLocalAccounts(client, await db.listening(client))
  const accounts = new PostgresAccountStore({ client })
  const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client }) })
  const administration = new AccountAdministration({
    accounts,
    local,
    stepUp,
    log: new PostgresSecurityLog({ client }),
  })
  return { local, stepUp, administration, service: new AccountService({ accounts, local, stepUp }) }
}

const kind = (local: LocalAccounts, signIn: SessionSignIn) => sessionOutcome(local.mechanisms[0], signIn)

describe('disabling an account on one instance while it signs in on another', () => {
  it('ends in a refused session on the other instance as soon as the notice arrives, whichever wins', async () => {
    const a = await instance(db.client)
    const b = await instance(db.connect(4))
    const rootName = `root.${randomBytes(4).toString('hex')}`
    const admin = await a.local.register({ username: rootName, password: PASSWORD })
    const adminSignIn = (await a.local.login(
      { username: rootName, password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    const session = { accountId: admin.accountId, securityEpoch: 1, sessionHandle: adminSignIn.handle }
    const outcomes: string[] = []
    const delays: number[] = []
    for (let round = 0; round < 8; round += 1) {
      const username = `racer.${round}.${randomBytes(4).toString('hex')}`
      const user = await b.local.register({ username, password: PASSWORD })
      // Warm B's cache with an earlier session, so B answers from its cache until the notice arrives.
      const earlier = (await b.local.login(
        { username, password: PASSWORD },
        { transport: 'session' },
      )) as SessionSignIn
      expect(await kind(b.local, earlier)).toBe('authenticated')
      const token = (
        await a.service.passwordStepUp({
          session,
          purpose: ADMINISTRATION_STEP_UP_PURPOSE,
          password: PASSWORD,
        })
      ).reveal()
      const [signIn] = await Promise.all([
        // Staggered starts, so some rounds let the disabling commit first and others the sign-in.
        new Promise((resolve) => setTimeout(resolve, [0, 10, 25, 60][round % 4]))
          .then(() => b.local.login({ username, password: PASSWORD }, { transport: 'session' }))
          .then(
            (value) => value as SessionSignIn,
            (error: unknown) => (isPortcullisError(error) ? error.code : 'untyped'),
          ),
        a.administration.disable({
          administrator: session,
          stepUpToken: token,
          accountId: user.accountId,
          reason: `race round ${round}`,
        }),
      ])
      const sessions = typeof signIn === 'string' ? [earlier] : [earlier, signIn]
      outcomes.push(typeof signIn === 'string' ? signIn : 'signed-in-before')
      for (const each of sessions) {
        const delay = await within(async () => (await kind(b.local, each)) !== 'authenticated', 5_000)
        expect(delay, `round ${round}: B kept a session of the disabled account`).not.toBeNull()
        delays.push(delay as number)
      }
      // And B refuses a new sign-in with the stable code.
      const again = await b.local
        .login({ username, password: PASSWORD })
        .catch((error: unknown) => (isPortcullisError(error) ? error.code : 'untyped'))
      expect(again).toBe('account.disabled')
    }
    for (const outcome of outcomes) expect(['account.disabled', 'signed-in-before']).toContain(outcome)
    const sorted = [...delays].sort((x, y) => x - y)
    const worst = sorted.at(-1) as number
    console.log(
      `disable vs sign-in on another instance: outcomes ${outcomes.join(', ')}; refusal on B after ${sorted
        .map((ms) => ms.toFixed(0))
        .join('/')} ms`,
    )
    // The notice, not the 60 s cache bound, ended them: far inside a second on any machine. The 100 ms
    // figure is a budget of the revocation benchmark (timed tests never judge budgets); printed above.
    expect(worst).toBeLessThan(1_000)
  }, 60_000)
})
