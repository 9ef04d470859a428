import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto'

// A WebAuthn authenticator in software, for unit tests: ES256 keys from node:crypto, authenticatorData,
// clientDataJSON and 'none' attestation built by hand (with a minimal CBOR encoder), so the server's
// verification runs on real signatures.

type Cbor = number | string | Uint8Array | CborMap | { readonly [key: string]: Cbor }
interface CborMap extends Map<number | string, Cbor> {}

function head(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value])
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value])
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff])
  const bytes = Buffer.alloc(5)
  bytes[0] = (major << 5) | 26
  bytes.writeUInt32BE(value, 1)
  return bytes
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8')
    return Buffer.concat([head(3, text.length), text])
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.byteLength), Buffer.from(value)])
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value)
  return Buffer.concat([
    head(5, entries.length),
    ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)]),
  ])
}

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest()
const b64 = (data: Uint8Array): string => Buffer.from(data).toString('base64url')

export interface CeremonyOverrides {
  /** The origin the browser reports in clientDataJSON. */
  readonly origin?: string
  /** The RP ID the authenticator hashes into authenticatorData. */
  readonly rpId?: string
  /** User verification flag; default true. */
  readonly userVerified?: boolean
  /** The signature counter to report; default the authenticator's own, incremented per assertion. */
  readonly counter?: number
  /** clientDataJSON type; default the ceremony's. */
  readonly type?: string
  /** Replace the challenge the browser signs. */
  readonly challenge?: string
  /** The user handle to return; default the registered one. */
  readonly userHandle?: string | null
}

/** One passkey on a software authenticator. `counter` grows with every assertion unless told otherwise. */
export class SoftwareAuthenticator {
  readonly credentialId = b64(randomBytes(32))
  readonly #privateKey: KeyObject
  readonly #publicKey: KeyObject
  readonly #rpId: string
  readonly #origin: string
  #userHandle = ''
  counter: number

  constructor(options: { readonly rpId: string; readonly origin: string; readonly counter?: number }) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.#privateKey = pair.privateKey
    this.#publicKey = pair.publicKey
    this.#rpId = options.rpId
    this.#origin = options.origin
    this.counter = options.counter ?? 0
  }

  #coseKey(): Buffer {
    const jwk = this.#publicKey.export({ format: 'jwk' })
    return cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    )
  }

  #authData(rpId: string, flags: number, counter: number, attested: boolean): Buffer {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    const parts = [sha256(rpId), Buffer.from([flags]), count]
    if (attested) {
      const id = Buffer.from(this.credentialId, 'base64url')
      const length = Buffer.from([id.length >> 8, id.length & 0xff])
      parts.push(Buffer.alloc(16), length, id, this.#coseKey())
    }
    return Buffer.concat(parts)
  }

  #clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8')
  }

  /** The JSON a browser posts after `navigator.credentials.create(options)`. */
  register(options: { challenge: string; user: { id: string } }, overrides: CeremonyOverrides = {}) {
    this.#userHandle = options.user.id
    const uv = overrides.userVerified ?? true
    const flags = 0x01 | (uv ? 0x04 : 0) | 0x40
    const authData = this.#authData(
      overrides.rpId ?? this.#rpId,
      flags,
      overrides.counter ?? this.counter,
      true,
    )
    const clientDataJSON = this.#clientData(
      overrides.type ?? 'webauthn.create',
      overrides.challenge ?? options.challenge,
      overrides.origin ?? this.#origin,
    )
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData })
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(clientDataJSON),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
    }
  }

  /** The JSON a browser posts after `navigator.credentials.get(options)`. */
  assert(options: { challenge: string }, overrides: CeremonyOverrides = {}) {
    if (overrides.counter === undefined && this.counter > 0) this.counter += 1
    const counter = overrides.counter ?? this.counter
    const uv = overrides.userVerified ?? true
    const authData = this.#authData(overrides.rpId ?? this.#rpId, 0x01 | (uv ? 0x04 : 0), counter, false)
    const clientDataJSON = this.#clientData(
      overrides.type ?? 'webauthn.get',
      overrides.challenge ?? options.challenge,
      overrides.origin ?? this.#origin,
    )
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.#privateKey)
    const userHandle = overrides.userHandle === undefined ? this.#userHandle : overrides.userHandle
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
    }
  }
}
