import { requiresTenant } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, required } from '@portcullis/core/policy'
import { describe, expect, it } from 'vitest'
import { createFetchSecurity, type FetchSecurity } from '../src/index.js'
import { apiKey } from './support/api-key.js'

function form(): FetchSecurity {
  return createFetchSecurity({
    mechanisms: [apiKey],
    openapi: { info: { title: 'Declarations', version: '1.0.0' } },
  })
}

/** What `declare` threw; fails the test when it returned or threw anything but a ConfigurationError. */
function refusal(declare: () => unknown): ConfigurationError {
  try {
    declare()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return error as ConfigurationError
  }
  throw new Error('the declaration was accepted')
}

const get = (portcullis: FetchSecurity, path: string, headers: Record<string, string> = {}) =>
  portcullis.fetch(new Request(`http://app.test${path}`, { headers }))

const paths = (portcullis: FetchSecurity) => Object.keys(portcullis.security.openapi().paths)

describe('route() of the fetch form: every declaration error is a ConfigurationError', () => {
  it('a route declared after the first request is refused with route.declared_while_serving, naming it', async () => {
    const portcullis = form()
    portcullis.route('GET', '/early', { auth: anonymous() }, () => Response.json({ early: true }))
    expect((await get(portcullis, '/early')).status).toBe(200)
    const late = refusal(() =>
      portcullis.route('GET', '/late', { auth: anonymous() }, () => Response.json({ late: true })),
    )
    expect(late.code).toBe('route.declared_while_serving')
    expect(late.message).toContain('GET /late')
    expect(late.message).not.toContain('matcher')
    // nothing of it reached the app, the OpenAPI document or the registry; the early route still serves
    expect((await get(portcullis, '/late')).status).toBe(404)
    expect(paths(portcullis)).toEqual(['/early'])
    expect(await (await get(portcullis, '/early')).json()).toEqual({ early: true })
  })

  it('a route that throws does not make later valid declarations throw', async () => {
    const portcullis = form()
    const unknownParameter = refusal(() =>
      portcullis.route('GET', '/reports', { guards: [requiresTenant()] }, () => Response.json({})),
    )
    expect(unknownParameter.code).toBe('route.unknown_parameter')
    const unknownOption = refusal(() =>
      portcullis.route('GET', '/other', { auth: required(), colour: 'red' } as never, () =>
        Response.json({}),
      ),
    )
    expect(unknownOption.code).toBe('configuration.unknown_option')
    portcullis.route('GET', '/me', { auth: required('api-key') }, (_request, { security }) =>
      Response.json({ me: security.principal?.id }),
    )
    const duplicate = refusal(() =>
      portcullis.route('GET', '/me', { auth: anonymous() }, () => Response.json({ me: 'anyone' })),
    )
    expect(duplicate.code).toBe('route.duplicate')
    portcullis.route('GET', '/tenants/:tenantId/reports', { guards: [requiresTenant()] }, () =>
      Response.json({ tenant: true }),
    )
    // the valid routes are served with their policy; the refused ones are not there at all
    expect((await get(portcullis, '/me')).status).toBe(401)
    expect(await (await get(portcullis, '/me', { 'x-api-key': 'alice-key' })).json()).toEqual({ me: 'alice' })
    expect((await get(portcullis, '/reports', { 'x-api-key': 'alice-key' })).status).toBe(404)
    expect((await get(portcullis, '/other', { 'x-api-key': 'alice-key' })).status).toBe(404)
    expect((await get(portcullis, '/tenants/acme/reports', { 'x-api-key': 'alice-key' })).status).toBe(403)
    expect(paths(portcullis)).toEqual(['/me', '/tenants/{tenantId}/reports'])
  })
})
