import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'

/** The tests' API-key mechanism: `x-api-key: alice-key` is alice; anything else is no credential. */
export const apiKey: AuthenticationMechanism = {
  name: 'api-key',
  securityScheme: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  authenticate: (source) =>
    source.header('x-api-key') === 'alice-key'
      ? authenticated({ id: 'alice', kind: 'user' }, { mechanism: 'api-key', credentialType: 'api-key' })
      : none(),
}
