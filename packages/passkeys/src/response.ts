import { invalidPasskeyInput } from '@portcullis/core/passkeys'
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'

const BASE64URL = /^[A-Za-z0-9_-]*$/
const MAX_MEMBER = 16_384

function text(value: unknown, field: string, optional = false): string | undefined {
  if (value === undefined && optional) return undefined
  if (typeof value !== 'string' || value.length > MAX_MEMBER || !BASE64URL.test(value)) {
    throw invalidPasskeyInput(`${field} must be base64url`)
  }
  return value
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidPasskeyInput(`${field} must be an object`)
  }
  return value as Record<string, unknown>
}

/** The challenge a response's `clientDataJSON` names (base64url), read before anything is verified. */
export function challengeOf(clientDataJSON: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'))
  } catch {
    throw invalidPasskeyInput('clientDataJSON is not JSON')
  }
  const challenge = object(parsed, 'clientDataJSON').challenge
  if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    throw invalidPasskeyInput('clientDataJSON names no challenge of this server')
  }
  return challenge
}

function common(value: unknown): { id: string; response: Record<string, unknown>; clientDataJSON: string } {
  const body = object(value, 'response')
  const id = text(body.id, 'id') as string
  if (body.rawId !== id) throw invalidPasskeyInput('rawId must equal id')
  if (body.type !== 'public-key') throw invalidPasskeyInput('type must be public-key')
  const response = object(body.response, 'response.response')
  return { id, response, clientDataJSON: text(response.clientDataJSON, 'clientDataJSON') as string }
}

/** A registration response (`navigator.credentials.create()` as JSON), shape-checked. */
export function readRegistrationResponse(value: unknown): {
  json: RegistrationResponseJSON
  challenge: string
} {
  const { id, response, clientDataJSON } = common(value)
  const attestationObject = text(response.attestationObject, 'attestationObject') as string
  const transports = Array.isArray(response.transports)
    ? response.transports
        .filter((t): t is string => typeof t === 'string' && /^[a-z-]{1,32}$/.test(t))
        .slice(0, 8)
    : []
  const json = {
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON, attestationObject, transports },
  } as RegistrationResponseJSON
  return { json, challenge: challengeOf(clientDataJSON) }
}

/** An authentication response (`navigator.credentials.get()` as JSON), shape-checked. */
export function readAuthenticationResponse(value: unknown): {
  json: AuthenticationResponseJSON
  challenge: string
  userHandle: string | undefined
} {
  const { id, response, clientDataJSON } = common(value)
  const userHandle = response.userHandle === null ? undefined : text(response.userHandle, 'userHandle', true)
  const json = {
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON,
      authenticatorData: text(response.authenticatorData, 'authenticatorData') as string,
      signature: text(response.signature, 'signature') as string,
      ...(userHandle === undefined ? {} : { userHandle }),
    },
  } as AuthenticationResponseJSON
  return { json, challenge: challengeOf(clientDataJSON), userHandle }
}
