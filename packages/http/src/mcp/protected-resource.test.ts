import { describe, expect, it } from 'vitest'
import { authorizationServerIssuer, protectedResource } from './protected-resource.js'

const RESOURCE = 'https://api.example/mcp'
const published = (authorizationServers: string[]) =>
  protectedResource({ resource: RESOURCE, authorizationServers }).document.authorization_servers

describe('authorization servers in the protected-resource metadata (RFC 9728, RFC 8414 section 3.3)', () => {
  it.each([
    ['no trailing slash (Google)', 'https://accounts.google.com'],
    ['a trailing slash (Auth0)', 'https://tenant.eu.auth0.com/'],
    ['a path (Entra ID)', 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0'],
    ['a path with a trailing slash', 'https://idp.example/realms/acme/'],
    ['a port', 'https://idp.example:8443/oauth2/default'],
    ['loopback http (127.0.0.1)', 'http://127.0.0.1:4000'],
    ['loopback http (localhost)', 'http://localhost:4000/'],
    ['loopback http (::1)', 'http://[::1]:4000/issuer'],
  ])('publishes an issuer with %s exactly as configured', (_name, issuer) => {
    expect(published([issuer])).toEqual([issuer])
  })

  it('keeps the order and the spelling of several issuers', () => {
    const issuers = ['https://login.example.com', 'https://login.example.com/', 'https://other.example/t']
    expect(published(issuers)).toEqual(issuers)
  })

  it.each([
    ['a query', 'https://login.example.com?tenant=a'],
    ['an empty query', 'https://login.example.com/?'],
    ['a fragment', 'https://login.example.com/#top'],
    ['an empty fragment', 'https://login.example.com#'],
    ['http on a public host', 'http://login.example.com'],
    ['http on a private address', 'http://10.0.0.7'],
    ['http on a name that only starts like loopback', 'http://localhost.evil.example'],
    ['another scheme', 'ftp://login.example.com'],
    ['userinfo', 'https://user:secret@login.example.com'],
    ['a relative reference', '/issuer'],
    ['whitespace', ' https://login.example.com'],
    ['an empty string', ''],
  ])('refuses an issuer with %s at startup, with a typed error naming the option', (_name, issuer) => {
    let thrown: unknown
    try {
      published(['https://fine.example', issuer])
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({
      name: 'ConfigurationError',
      code: 'mcp.protected_resource_invalid',
      option: 'protectedResource.authorizationServers[1]',
    })
    // the message names the rule, never the configured value (it may hold credentials)
    expect((thrown as Error).message).not.toContain('secret')
    expect((thrown as Error).message).toMatch(/^protectedResource\.authorizationServers\[1\] must/)
  })

  it('returns the string itself: no URL parsing round trip', () => {
    const issuer = 'https://Login.Example.com'
    expect(authorizationServerIssuer(issuer)).toBe(issuer)
    expect(new URL(issuer).href).not.toBe(issuer)
  })
})
