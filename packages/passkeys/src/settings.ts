import { ConfigurationError } from '@portcullis/core/errors'

const fail = (message: string): never => {
  throw new ConfigurationError('passkey.invalid_config', message)
}

/** Checks the relying party configuration once, at startup. */
export function passkeySettings(options: {
  readonly rpId: string
  readonly origins: readonly string[]
  readonly pepper: Uint8Array
  readonly challengeTtlSeconds?: number
}): { rpId: string; origins: readonly string[]; challengeTtlSeconds: number } {
  const rpId = options.rpId
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId) || rpId.length > 253) {
    fail('rpId must be a lower-case host name (no scheme, port or path)')
  }
  if (options.origins.length === 0) fail('origins must name at least one origin')
  for (const origin of options.origins) {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {
      url = undefined
    }
    if (url === undefined || url.origin !== origin)
      fail(`origin ${JSON.stringify(origin)} must be scheme://host[:port]`)
    const { protocol, hostname } = url as URL
    if (protocol !== 'https:' && !(protocol === 'http:' && hostname === 'localhost')) {
      fail(`origin ${JSON.stringify(origin)} must be https (or http://localhost)`)
    }
    if (hostname !== rpId && !hostname.endsWith(`.${rpId}`)) {
      fail(`origin ${JSON.stringify(origin)} is not ${rpId} or a host under it`)
    }
  }
  if (options.pepper.byteLength < 32) fail('pepper must be at least 32 bytes')
  const ttl = options.challengeTtlSeconds ?? 300
  if (!Number.isSafeInteger(ttl) || ttl < 30 || ttl > 600)
    fail('challengeTtlSeconds must be an integer from 30 to 600')
  return { rpId, origins: Object.freeze([...options.origins]), challengeTtlSeconds: ttl }
}
