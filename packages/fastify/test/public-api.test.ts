// The package root is the whole public API: listed here, so that adding a name is a deliberate change.
import { packageSurface } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

const RUNTIME_NAMES = [
  'createOAuthRoutes',
  'currentLocalSession',
  'localSessionOf',
  'OAUTH_NOT_FOUND',
  'OAuthBindingCookie',
  'StepUpCookies',
  'fastifyProblemFor',
  'healthRoute',
  'HttpProblem',
  'localAccountRoutes',
  'markOf',
  'mcpEndpoint',
  'mcpResource',
  'portcullis',
  'problemBody',
  'problemErrorHandler',
  'problemFor',
  'problems',
  'requirePrincipal',
  'securityOf',
  'sendProblem',
]

describe('the package root of @portcullis/fastify', () => {
  it('exports exactly the listed runtime names', async () => {
    const { importRoot } = packageSurface(new URL('../', import.meta.url))
    expect(Object.keys(await importRoot()).sort()).toEqual([...RUNTIME_NAMES].sort())
  })
})
