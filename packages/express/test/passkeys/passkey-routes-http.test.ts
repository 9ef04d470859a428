// The passkey routes over HTTP (supertest on a real Express app): the passkey step-up earns the one-use
// credential a guarded action consumes, the challenge is bound to the browser cookie, removal needs its
// step-up, refusals are problem+json with stable codes, and the routes are in the OpenAPI document.
import { randomBytes } from 'node:crypto'
import { SoftwareAuthenticator } from '@portcullis/conformance/webauthn'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import { MemorySessionStore } from '@portcullis/core/local-accounts'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore, PasskeyStepUp } from '@portcullis/core/passkeys'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { PasskeyService } from '@portcullis/passkeys'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity, localAccountRoutes, localSessionOf, passkeyRoutes } from '../../src/index.js'
import {
  cookiesOf,
  ORIGIN,
  PASSWORD,
  SAME_ORIGIN,
  SESSION_COOKIE,
  sessionLocalAccounts,
} from '../local-accounts/fixture.js'

const BINDING = '__Host-portcullis-passkey'

async function passkeyApp() {
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const passkeyStore = new MemoryPasskeyStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, stepUpStore, passkeyStore] })
  const local = sessionLocalAccounts({
    accounts,
    sessions,
  })
  const stepUp = new StepUpService({ store: stepUpStore })
  const passkeys = new PasskeyService({
    rpId: 'app.example',
    rpName: 'Portcullis',
    origins: [ORIGIN],
    passkeys: passkeyStore,
    challenges: new MemoryPasskeyChallengeStore(),
    pepper: randomBytes(32),
  })
  const security = createSecurity({
    mechanisms: local.mechanisms,
    stepUp: {
      verifier: stepUpVerifierFor(stepUp, (req) => {
        const session = localSessionOf({ ...req, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
    },
    openapi: { info: { title: 'passkeys', version: '1' } },
  })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  const passkeyStepUp = new PasskeyStepUp({ passkeys, stepUp })
  app.use(passkeyRoutes({ passkeys, passkeyStepUp, stepUp, local, security }))
  app.get('/openapi.json', (_req, res) => {
    res.json(security.openapi())
  })
  const credentials = { username: 'alice', password: PASSWORD }
  await request(app).post('/auth/register').set(SAME_ORIGIN).send(credentials).expect(201)
  const login = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials)
  const session = cookiesOf(login).get(SESSION_COOKIE) ?? ''
  const accountId = login.body.accountId as string
  // Registered through the service (the conformance suite covers the registration routes); the
  // authenticator is software.
  const authenticator = new SoftwareAuthenticator({ rpId: 'app.example', origin: ORIGIN })
  const start = await passkeys.beginRegistration({ accountId, userName: 'alice', sessionBinding: 'setup' })
  await passkeys.finishRegistration({
    accountId,
    sessionBinding: 'setup',
    browserBinding: start.revealBrowserBinding(),
    response: authenticator.register(start.options),
    name: 'Laptop',
  })
  const post = (path: string, cookie = session) =>
    request(app).post(path).set(SAME_ORIGIN).set('cookie', cookie)
  return { app, session, authenticator, passkeyStore, post }
}

type App = Awaited<ReturnType<typeof passkeyApp>>

/** Runs the passkey step-up for `purpose` over HTTP; the finishing answer. */
async function passkeyStepUp(app: App, purpose: string, options: { otherBrowser?: boolean } = {}) {
  const begun = await app.post(`/auth/step-up/${purpose}/passkey/options`)
  expect(begun.status).toBe(200)
  const binding =
    options.otherBrowser === true
      ? `${BINDING}=${randomBytes(32).toString('base64url')}`
      : cookiesOf(begun).get(BINDING)
  return app
    .post(`/auth/step-up/${purpose}/passkey`, `${app.session}; ${binding}`)
    .send({ response: app.authenticator.assert(begun.body) })
}

describe('passkey step-up over HTTP', () => {
  it('earns a one-use credential of the purpose that the passkey removal consumes', async () => {
    const app = await passkeyApp()
    const answer = await passkeyStepUp(app, 'passkey-remove')
    expect(answer.status).toBe(200)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.body).toMatchObject({
      purpose: 'passkey-remove',
      stepUpToken: expect.stringMatching(/^[\w-]{43}$/),
    })
    const remove = () =>
      app
        .post(`/auth/passkeys/${app.authenticator.credentialId}/remove`)
        .set('portcullis-step-up', answer.body.stepUpToken)
    expect((await remove()).status).toBe(204)
    expect(await app.passkeyStore.findPasskey(app.authenticator.credentialId)).toBeNull()
  })

  it('sets the browser-binding cookie HttpOnly and Secure, and refuses another browser (401)', async () => {
    const app = await passkeyApp()
    const begun = await app.post('/auth/step-up/delete-account/passkey/options')
    expect(String(begun.headers['set-cookie'])).toMatch(
      /__Host-portcullis-passkey=[\w-]+; Path=\/; HttpOnly; Secure/,
    )
    expect(begun.body.allowCredentials.map((c: { id: string }) => c.id)).toEqual([
      app.authenticator.credentialId,
    ])
    const refused = await passkeyStepUp(app, 'delete-account', { otherBrowser: true })
    expect(refused.status).toBe(401)
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/)
    expect(refused.body.code).toBe('passkey.challenge_invalid')
    expect(JSON.stringify(refused.body)).not.toMatch(/stepUpToken/)
  })

  it('refuses a signed-out caller and a malformed purpose', async () => {
    const app = await passkeyApp()
    expect(
      (await request(app.app).post('/auth/step-up/delete-account/passkey/options').set(SAME_ORIGIN)).status,
    ).toBe(401)
    const malformed = await app.post('/auth/step-up/%2E%2E/passkey/options')
    expect(malformed.status).toBe(400)
  })
})

describe('passkey management over HTTP', () => {
  it('lists the passkeys without public keys and renames one', async () => {
    const app = await passkeyApp()
    const list = await request(app.app).get('/auth/passkeys').set('cookie', app.session)
    expect(list.status).toBe(200)
    expect(list.body.passkeys).toEqual([expect.objectContaining({ name: 'Laptop', suspended: false })])
    expect(JSON.stringify(list.body)).not.toMatch(/publicKey/)
    const id = app.authenticator.credentialId
    expect((await app.post(`/auth/passkeys/${id}/rename`).send({ name: 'Desk key' })).status).toBe(204)
    expect((await app.passkeyStore.findPasskey(id))?.name).toBe('Desk key')
    const unknown = await app
      .post(`/auth/passkeys/${randomBytes(32).toString('base64url')}/rename`)
      .send({ name: 'x' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('passkey.not_found')
  })

  it('refuses a removal without a step-up (401 step-up.required) and keeps the passkey', async () => {
    const app = await passkeyApp()
    const refused = await app.post(`/auth/passkeys/${app.authenticator.credentialId}/remove`)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('step-up.required')
    expect(await app.passkeyStore.findPasskey(app.authenticator.credentialId)).not.toBeNull()
  })

  it('publishes every passkey route in the OpenAPI document', async () => {
    const app = await passkeyApp()
    const paths = Object.keys((await request(app.app).get('/openapi.json')).body.paths)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/auth/passkeys',
        '/auth/passkeys/register/options',
        '/auth/passkeys/register',
        '/auth/passkeys/sign-in/options',
        '/auth/passkeys/sign-in',
        '/auth/passkeys/{credentialId}/rename',
        '/auth/passkeys/{credentialId}/remove',
        '/auth/step-up/{purpose}/passkey/options',
        '/auth/step-up/{purpose}/passkey',
      ]),
    )
  })
})
