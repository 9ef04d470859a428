import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE, PASSWORD, SESSION_COOKIE } from './account-world.js'
import { administrationWorld } from './administration-world.js'
import { type Browser, browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const STEP_UP_HEADER = 'portcullis-step-up'
const PURPOSE = 'administration'
const REASON = { reason: 'support ticket 4711' }

/** An administrator (`root`) and a user (`alice`), both signed in with sessions. */
async function adminAndUser(fixture: AdapterFixture) {
  const world = await administrationWorld()
  const app = await fixture.start(world.scenario)
  const root = await signedInBrowser(app.url, 'root')
  const alice = await signedInBrowser(app.url, 'alice')
  const rootId = ((await root.get('/me')).json() as { id: string }).id
  const aliceId = ((await alice.get('/me')).json() as { id: string }).id
  world.administrators.add(rootId)
  /** A change by `client` with a fresh `administration` step-up of its own session. */
  const act = async (client: Browser, path: string, body: unknown = REASON) =>
    client.post(`/auth/admin/accounts/${path}`, body, {
      [STEP_UP_HEADER]: await passwordStepUp(client, PURPOSE),
    })
  return { ...world, url: app.url, root, alice, rootId, aliceId, act }
}

export const administrationCases: readonly Case[] = [
  conformanceCase(
    'adapter.administration-role',
    'every administration route refuses a caller without the administrator role (403) and an anonymous one (401)',
    async (fixture, check) => {
      const w = await adminAndUser(fixture)
      checkProblem(
        check,
        await w.alice.get('/auth/admin/accounts?by=prefix&q=r'),
        403,
        'authorization.denied',
      )
      checkProblem(check, await w.alice.get(`/auth/admin/accounts/${w.rootId}`), 403, 'authorization.denied')
      for (const path of ['disable', 'sign-out', 'delete', 'password-reset']) {
        checkProblem(check, await w.act(w.alice, `${w.rootId}/${path}`), 403, 'authorization.denied')
      }
      const anonymous = await browser(w.url).get('/auth/admin/accounts?by=prefix&q=r')
      check(anonymous.status === 401, `an anonymous search answered ${anonymous.status}`)
      check(
        (await w.accounts.getAccount(w.rootId))?.status === 'active',
        'a refused call changed the account',
      )
    },
  ),
  conformanceCase(
    'adapter.administration-disable',
    "disabling refuses the user's open session at once and their sign-in with account.disabled; enabling restores it",
    async (fixture, check) => {
      const w = await adminAndUser(fixture)
      const search = await w.root.get('/auth/admin/accounts?by=username&q=alice')
      check(search.status === 200, `search answered ${search.status}: ${search.text}`)
      const hits = (search.json() as { hits: { accountId: string }[] }).hits
      check(hits.length === 1 && hits[0]?.accountId === w.aliceId, 'the search did not find alice')
      check((await w.alice.get('/me')).status === 200, 'alice is not signed in before')
      const disabled = await w.act(w.root, `${w.aliceId}/disable`)
      check(disabled.status === 200, `disable answered ${disabled.status}: ${disabled.text}`)
      const body = disabled.json() as { account: { status: string }; auditId: string }
      check(
        body.account.status === 'disabled' && typeof body.auditId === 'string',
        'the answer does not say so',
      )
      check((await w.alice.get('/me')).status === 401, "alice's session still works")
      const again = await browser(w.url).post('/auth/login', { username: 'alice', password: PASSWORD })
      checkProblem(check, again, 403, 'account.disabled')
      const view = await w.root.get(`/auth/admin/accounts/${w.aliceId}`)
      const events = (view.json() as { recentEvents: { type: string; actorId: string; reason: string }[] })
        .recentEvents
      const audit = events.find((event) => event.type === 'administration.account_disabled')
      check(
        audit?.actorId === w.rootId && audit.reason === REASON.reason,
        'no audit entry with administrator and reason',
      )
      const enabled = await w.act(w.root, `${w.aliceId}/enable`)
      check(enabled.status === 200, `enable answered ${enabled.status}`)
      const back = await browser(w.url).post('/auth/login', { username: 'alice', password: PASSWORD })
      check(back.status === 200, `sign-in after enabling answered ${back.status}`)
    },
  ),
  conformanceCase(
    'adapter.administration-step-up',
    'a change without a step-up, with a stale one or with a replayed one is 401 step-up.required and changes nothing',
    async (fixture, check) => {
      const w = await adminAndUser(fixture)
      const path = `/auth/admin/accounts/${w.aliceId}/sign-out`
      checkProblem(check, await w.root.post(path, REASON), 401, 'step-up.required')
      const stale = await passwordStepUp(w.root, PURPOSE)
      w.clock.advance((w.stepUp.ttlSeconds + 1) * 1000)
      checkProblem(
        check,
        await w.root.post(path, REASON, { [STEP_UP_HEADER]: stale }),
        401,
        'step-up.required',
      )
      const other = await passwordStepUp(w.root, 'delete-account')
      checkProblem(
        check,
        await w.root.post(path, REASON, { [STEP_UP_HEADER]: other }),
        401,
        'step-up.required',
      )
      check((await w.alice.get('/me')).status === 200, 'a refused sign-out ended the session')
      const once = await passwordStepUp(w.root, PURPOSE)
      check(
        (await w.root.post(path, REASON, { [STEP_UP_HEADER]: once })).status === 200,
        'a fresh step-up failed',
      )
      checkProblem(
        check,
        await w.root.post(path, REASON, { [STEP_UP_HEADER]: once }),
        401,
        'step-up.required',
      )
      check((await w.alice.get('/me')).status === 401, 'sign-out everywhere left the session')
    },
  ),
  conformanceCase(
    'adapter.administration-forgery',
    "forged account ids and another account's key in the path are 404 or 400, change nothing, and need a reason",
    async (fixture, check) => {
      const w = await adminAndUser(fixture)
      const record = (keyId: string, ownerId: string) => ({
        keyId,
        ownerId,
        ownerKind: 'user' as const,
        digest: new Uint8Array(32).fill(3),
        pepperVersion: 'v1',
        restrictions: {},
        createdAt: new Date(),
      })
      await w.apiKeys.create(record('rootskey00000001', w.rootId))
      await w.apiKeys.create(record('aliceskey0000001', w.aliceId))
      // Alice's account in the path, root's key: not found, and root's key stays live.
      const forged = await w.act(w.root, `${w.aliceId}/api-keys/rootskey00000001/revoke`)
      checkProblem(check, forged, 404, 'administration.not_found')
      check((await w.apiKeys.get('rootskey00000001'))?.revokedAt === undefined, 'a forged path revoked a key')
      const unknown = await w.act(w.root, `${encodeURIComponent(`${w.aliceId}x`)}/disable`)
      checkProblem(check, unknown, 404, 'administration.not_found')
      const traversal = await w.act(w.root, `${encodeURIComponent(`../${w.aliceId}`)}/disable`)
      checkProblem(check, traversal, 404, 'administration.not_found')
      const noReason = await w.act(w.root, `${w.aliceId}/disable`, {})
      check(noReason.status === 400, `a change without a reason answered ${noReason.status}`)
      checkProblem(
        check,
        await w.act(w.root, `${w.aliceId}/disable`, { reason: ' ' }),
        400,
        'administration.reason_required',
      )
      checkProblem(check, await w.act(w.root, `${w.rootId}/disable`), 409, 'administration.self_target')
      check((await w.accounts.getAccount(w.aliceId))?.status === 'active', 'a refused change disabled alice')
      const revoked = await w.act(w.root, `${w.aliceId}/api-keys/aliceskey0000001/revoke`)
      check(revoked.status === 200, `revoking alice's own key answered ${revoked.status}`)
      check(
        (await w.apiKeys.get('aliceskey0000001'))?.revokedAt instanceof Date,
        "alice's key is not revoked",
      )
    },
  ),
  conformanceCase(
    'adapter.administration-csrf',
    'a cross-site administrative form is refused (local.csrf_refused) and changes nothing',
    async (fixture, check) => {
      const w = await adminAndUser(fixture)
      const token = await passwordStepUp(w.root, PURPOSE)
      for (const path of ['disable', 'enable', 'sign-out', 'password-reset', 'delete']) {
        const answer = await w.root.post(`/auth/admin/accounts/${w.aliceId}/${path}`, REASON, {
          ...CROSS_SITE,
          [STEP_UP_HEADER]: token,
        })
        checkProblem(check, answer, 403, 'local.csrf_refused')
      }
      check(w.root.cookies.has(SESSION_COOKIE), 'the administrator lost the session')
      check((await w.accounts.getAccount(w.aliceId))?.status === 'active', 'a cross-site form changed alice')
      check((await w.alice.get('/me')).status === 200, "a cross-site form ended alice's session")
    },
  ),
]
