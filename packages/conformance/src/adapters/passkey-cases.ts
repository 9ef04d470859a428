import { randomBytes } from 'node:crypto'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { SoftwareAuthenticator } from '../webauthn/software-authenticator.js'
import { CROSS_SITE, ORIGIN, SESSION_COOKIE } from './account-world.js'
import { type Browser, browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import { factorWorld, GUARDED_PURPOSE } from './factor-world.js'
import { type Answer, call as rawCall } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>
type Check = (condition: unknown, detail?: string) => void

const BINDING = '__Host-portcullis-passkey'
const STEP_UP_HEADER = 'portcullis-step-up'

async function started(fixture: AdapterFixture) {
  const world = await factorWorld()
  const app = await fixture.start(world.scenario)
  return { ...world, url: app.url }
}

const foreignBinding = () => randomBytes(32).toString('base64url')

/** Begins a registration with a fresh `passkey-register` step-up: the options answer. */
async function registrationOptions(client: Browser): Promise<Answer> {
  const token = await passwordStepUp(client, 'passkey-register')
  return client.post('/auth/passkeys/register/options', undefined, { [STEP_UP_HEADER]: token })
}

/** Registers a software passkey to the signed-in account over HTTP. */
async function registered(client: Browser): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator({ rpId: 'app.example', origin: ORIGIN })
  const options = await registrationOptions(client)
  if (options.status !== 200) throw new Error(`registration options answered ${options.status}`)
  const response = authenticator.register(options.json() as { challenge: string; user: { id: string } })
  const done = await client.post('/auth/passkeys/register', { response, name: 'Laptop' })
  if (done.status !== 201) throw new Error(`registration answered ${done.status}: ${done.text}`)
  return authenticator
}

function checkNoStore(check: Check, answer: Answer, what: string): void {
  check((answer.headers['cache-control'] ?? '').includes('no-store'), `${what} is cacheable`)
}

export const passkeyCases: readonly Case[] = [
  conformanceCase(
    'adapter.passkey-register',
    'registering a passkey needs a one-use passkey-register step-up and the browser that began it',
    async (fixture, check) => {
      const { url, passkeyStore } = await started(fixture)
      const client = await signedInBrowser(url)
      const bare = await client.post('/auth/passkeys/register/options')
      checkProblem(check, bare, 401, 'step-up.required')
      const token = await passwordStepUp(client, 'passkey-register')
      const wrongPurpose = await passwordStepUp(client, 'passkey-remove')
      const misused = await client.post('/auth/passkeys/register/options', undefined, {
        [STEP_UP_HEADER]: wrongPurpose,
      })
      checkProblem(check, misused, 401, 'step-up.required')
      const options = await client.post('/auth/passkeys/register/options', undefined, {
        [STEP_UP_HEADER]: token,
      })
      check(options.status === 200, `options answered ${options.status}`)
      checkNoStore(check, options, 'the creation options')
      const creation = options.json() as { challenge: string; user: { id: string; name: string } }
      check(creation.user?.name === 'alice', `user name ${String(creation.user?.name)}`)
      const cookie = options.setCookies.find((line) => line.startsWith(`${BINDING}=`)) ?? ''
      check(
        /; HttpOnly/i.test(cookie) && /; Secure/i.test(cookie) && /; Path=\//i.test(cookie),
        'binding cookie flags',
      )
      const replayed = await client.post('/auth/passkeys/register/options', undefined, {
        [STEP_UP_HEADER]: token,
      })
      checkProblem(check, replayed, 401, 'step-up.required')

      const authenticator = new SoftwareAuthenticator({ rpId: 'app.example', origin: ORIGIN })
      const response = authenticator.register(creation)
      const foreign = await client.post(
        '/auth/passkeys/register',
        { response },
        { cookie: client.cookieHeader({ [BINDING]: foreignBinding() }) },
      )
      checkProblem(check, foreign, 401, 'passkey.challenge_invalid')
      check(
        (await passkeyStore.findPasskey(authenticator.credentialId)) === null,
        'a foreign browser registered',
      )

      const again = await registrationOptions(client)
      const stored = await client.post('/auth/passkeys/register', {
        response: authenticator.register(again.json() as typeof creation),
        name: 'Laptop',
      })
      check(stored.status === 201, `registration answered ${stored.status}`)
      checkNoStore(check, stored, 'the registration')
      const view = (stored.json() as { passkey?: Record<string, unknown> }).passkey ?? {}
      check(view.credentialId === authenticator.credentialId && view.name === 'Laptop', 'the passkey view')
      check(!JSON.stringify(view).includes('publicKey'), 'the answer shows a public key')
      const list = (await client.get('/auth/passkeys')).json() as { passkeys: { credentialId: string }[] }
      check(list.passkeys.length === 1, `listed ${list.passkeys.length} passkeys`)
    },
  ),
  conformanceCase(
    'adapter.passkey-sign-in',
    'a passkey signs in (a working session cookie) once per challenge, CSRF-checked, never a disabled account',
    async (fixture, check) => {
      const { url, accounts } = await started(fixture)
      const owner = await signedInBrowser(url)
      const authenticator = await registered(owner)
      const visitor = browser(url)
      const options = await visitor.post('/auth/passkeys/sign-in/options')
      check(options.status === 200, `sign-in options answered ${options.status}`)
      checkNoStore(check, options, 'the sign-in options')
      const request = options.json() as { challenge: string; allowCredentials?: unknown[] }
      check((request.allowCredentials ?? []).length === 0, 'sign-in options name a credential')
      check(visitor.cookies.has(BINDING), 'no binding cookie')
      const response = authenticator.assert(request)
      const signIn = await visitor.post('/auth/passkeys/sign-in', { response })
      check(signIn.status === 200, `sign-in answered ${signIn.status}: ${signIn.text}`)
      const body = signIn.json() as { accountId?: string; csrfToken?: string }
      check(typeof body.csrfToken === 'string' && typeof body.accountId === 'string', 'the sign-in body')
      check(visitor.cookies.has(SESSION_COOKIE), 'no session cookie')
      const me = await visitor.get('/me')
      check(
        me.status === 200 && (me.json() as { id: string }).id === body.accountId,
        'the session does not work',
      )

      const replay = browser(url)
      replay.cookies.set(BINDING, visitor.cookies.get(BINDING) ?? '')
      checkProblem(
        check,
        await replay.post('/auth/passkeys/sign-in', { response }),
        401,
        'passkey.challenge_invalid',
      )

      const stranger = browser(url)
      const noAnchor = await call(stranger, '/auth/passkeys/sign-in/options', {})
      checkProblem(check, noAnchor, 403, 'local.csrf_refused')
      const crossSite = await stranger.post('/auth/passkeys/sign-in', { response }, CROSS_SITE)
      checkProblem(check, crossSite, 403, 'local.csrf_refused')

      await accounts.setAccountStatus({
        accountId: body.accountId ?? '',
        status: 'disabled',
        now: new Date(),
      })
      const late = browser(url)
      const lateOptions = (await late.post('/auth/passkeys/sign-in/options')).json() as { challenge: string }
      const refused = await late.post('/auth/passkeys/sign-in', {
        response: authenticator.assert(lateOptions),
      })
      checkProblem(check, refused, 403, 'account.disabled')
      check(!late.cookies.has(SESSION_COOKIE), 'a disabled account got a session')
    },
  ),
  conformanceCase(
    'adapter.passkey-token',
    'a passkey token sign-in answers a token pair marked amr hwk+user, with no second factor asked',
    async (fixture, check) => {
      const { url } = await started(fixture)
      const owner = await signedInBrowser(url)
      const authenticator = await registered(owner)
      const client = browser(url)
      const options = (await client.post('/auth/passkeys/sign-in/options')).json() as { challenge: string }
      const issued = await client.post('/auth/passkeys/token', { response: authenticator.assert(options) })
      check(issued.status === 200, `token answered ${issued.status}: ${issued.text}`)
      const pair = issued.json() as { access_token?: string; refresh_token?: string; token_type?: string }
      check(pair.token_type === 'Bearer' && typeof pair.refresh_token === 'string', 'the token body')
      const payload = JSON.parse(
        Buffer.from((pair.access_token ?? '').split('.')[1] ?? '', 'base64url').toString('utf8') || '{}',
      ) as { amr?: string[] }
      check(JSON.stringify(payload.amr) === '["hwk","user"]', `amr ${JSON.stringify(payload.amr)}`)
      const me = await call(browser(url), '/me', { authorization: `Bearer ${pair.access_token}` }, 'GET')
      check(me.status === 200, `the access token does not authenticate: ${me.status}`)
    },
  ),
  conformanceCase(
    'adapter.passkey-step-up',
    'a passkey step-up earns a one-use credential a requiresStepUp route accepts once; another browser earns none',
    async (fixture, check) => {
      const { url } = await started(fixture)
      const client = await signedInBrowser(url)
      const authenticator = await registered(client)
      checkProblem(check, await client.post('/guarded'), 401, 'step-up.required')
      const begin = async () => {
        const answer = await client.post(`/auth/step-up/${GUARDED_PURPOSE}/passkey/options`)
        return answer.json() as { challenge: string; allowCredentials?: { id: string }[] }
      }
      const foreignOptions = await begin()
      const foreign = await client.post(
        `/auth/step-up/${GUARDED_PURPOSE}/passkey`,
        { response: authenticator.assert(foreignOptions) },
        { cookie: client.cookieHeader({ [BINDING]: foreignBinding() }) },
      )
      checkProblem(check, foreign, 401, 'passkey.challenge_invalid')
      const options = await begin()
      const ids = (options.allowCredentials ?? []).map((item) => item.id)
      check(ids.length === 1 && ids[0] === authenticator.credentialId, 'step-up options list the passkey')
      const earned = await client.post(`/auth/step-up/${GUARDED_PURPOSE}/passkey`, {
        response: authenticator.assert(options),
      })
      check(earned.status === 200, `step-up answered ${earned.status}: ${earned.text}`)
      const token = (earned.json() as { stepUpToken?: string }).stepUpToken ?? ''
      const guarded = await client.post('/guarded', undefined, { [STEP_UP_HEADER]: token })
      check(guarded.status === 200, `the guarded route answered ${guarded.status}`)
      const again = await client.post('/guarded', undefined, { [STEP_UP_HEADER]: token })
      checkProblem(check, again, 401, 'step-up.required')
    },
  ),
]

/** One request with exactly these headers (no same-origin defaults) and the browser's cookies. */
function call(
  client: Browser,
  path: string,
  headers: Record<string, string>,
  method: 'GET' | 'POST' = 'POST',
): Promise<Answer> {
  const cookie = client.cookieHeader()
  return rawCall(client.url, path, { method, headers: { ...headers, ...(cookie === '' ? {} : { cookie }) } })
}
