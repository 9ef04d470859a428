// A stand-in for the local-accounts session mechanism, so the examples are self-contained.
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'

declare function lookupSession(id: string): Promise<{ accountId: string } | undefined>

export const sessionMechanism: AuthenticationMechanism = {
  name: 'session',
  securityScheme: { type: 'apiKey', in: 'cookie', name: '__Host-session' },
  async authenticate(source) {
    const id = source.cookie('__Host-session')
    if (id === undefined) return none()
    const session = await lookupSession(id)
    if (session === undefined) return invalid('session: unknown')
    return authenticated(
      { id: session.accountId, kind: 'user' },
      { mechanism: 'session', credentialType: 'session' },
    )
  },
}
