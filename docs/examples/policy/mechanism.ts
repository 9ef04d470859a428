// A mechanism verifies one kind of credential and says who sent it. It never decides where it is
// accepted: that is route policy. This one accepts service tokens from an in-memory table.
import { createHash, timingSafeEqual } from 'node:crypto'
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'

const digest = (value: string) => createHash('sha256').update(value).digest()
const reportsToken = process.env.REPORTS_TOKEN
if (reportsToken === undefined || reportsToken.length < 32) throw new Error('REPORTS_TOKEN must be set')
const SERVICE_TOKENS = new Map([['reports', digest(reportsToken)]])

// #region service-token
export const serviceToken: AuthenticationMechanism = {
  name: 'service-token',
  // Not accepted by a bare `required()`: routes must name it.
  default: false,
  securityScheme: { type: 'apiKey', in: 'header', name: 'x-service-token' },
  // No I/O here, so no promise: a synchronous answer lets the route run in the same turn.
  authenticate(source) {
    const presented = source.header('x-service-token')
    if (presented === undefined) return none()
    const [service, secret] = presented.split(':', 2)
    const expected = service === undefined ? undefined : SERVICE_TOKENS.get(service)
    if (expected === undefined || secret === undefined) return invalid('service-token: unknown service')
    // Equal-length digests: the comparison time does not depend on the presented secret.
    if (!timingSafeEqual(expected, digest(secret))) return invalid('service-token: mismatch')
    return authenticated(
      { id: `service:${service}`, kind: 'service' },
      // Restrictions only narrow what the resolver grants: this token can read, never write.
      {
        mechanism: 'service-token',
        credentialType: 'service-token',
        restrictions: { scopes: ['reports:read'] },
      },
    )
  },
}
// #endregion service-token
