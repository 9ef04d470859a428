import { associatedData } from '../protection/associated-data.js'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '../protection/envelope-format.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'

const PURPOSE = 'portcullis.impersonation.v1'
const VALUE = /^[A-Za-z0-9._:-]{1,4096}$/

/**
 * What an impersonation cookie carries, sealed with the protector and bound to the impersonation
 * session's handle: a cookie of one impersonation never verifies another one's session.
 */
export interface ImpersonationFacts {
  readonly impersonationId: string
  readonly administratorId: string
  /** The administrator's own session id, handed back when the impersonation ends. */
  readonly administratorSessionId: string
  readonly accountId: string
  readonly sessionHandle: string
  readonly startedAt: number
  readonly expiresAt: number
}

/** Seals `facts` into a cookie value (`pe1.<key version>.<base64url>`). */
export async function sealFacts(
  protector: OAuthTransactionProtector,
  facts: ImpersonationFacts,
): Promise<string> {
  const plaintext = Buffer.from(
    JSON.stringify([
      facts.impersonationId,
      facts.administratorId,
      facts.administratorSessionId,
      facts.accountId,
      facts.startedAt,
      facts.expiresAt,
    ]),
    'utf8',
  )
  const envelope = await protector.protect(plaintext, associatedData(PURPOSE, facts.sessionHandle))
  return serializeProtectedEnvelope(envelope)
}

/** The facts a cookie value seals for the session `sessionHandle`, or null (tampered, foreign, malformed). */
export async function openFacts(
  protector: OAuthTransactionProtector,
  value: string,
  sessionHandle: string,
): Promise<ImpersonationFacts | null> {
  if (!VALUE.test(value)) return null
  let plaintext: Uint8Array
  try {
    plaintext = await protector.unprotect(
      parseProtectedEnvelope(value),
      associatedData(PURPOSE, sessionHandle),
    )
  } catch {
    return null
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(plaintext).toString('utf8'))
  } catch {
    return null
  }
  if (!Array.isArray(parsed) || parsed.length !== 6) return null
  const [impersonationId, administratorId, administratorSessionId, accountId, startedAt, expiresAt] = parsed
  if (
    typeof impersonationId !== 'string' ||
    typeof administratorId !== 'string' ||
    typeof administratorSessionId !== 'string' ||
    typeof accountId !== 'string' ||
    !Number.isSafeInteger(startedAt) ||
    !Number.isSafeInteger(expiresAt)
  ) {
    return null
  }
  return Object.freeze({
    impersonationId,
    administratorId,
    administratorSessionId,
    accountId,
    sessionHandle,
    startedAt: startedAt as number,
    expiresAt: expiresAt as number,
  })
}

/** How the impersonation cookie is set: beside the session cookie, with the same attributes. */
export interface ImpersonationCookie {
  readonly name: string
  readonly secure: boolean
  readonly sameSite: 'Lax' | 'Strict'
}

function attributes(cookie: ImpersonationCookie): string {
  return `Path=/; HttpOnly; ${cookie.secure ? 'Secure; ' : ''}SameSite=${cookie.sameSite}`
}

export function serializeImpersonationCookie(
  cookie: ImpersonationCookie,
  value: string,
  maxAgeSeconds: number,
): string {
  return `${cookie.name}=${value}; ${attributes(cookie)}; Max-Age=${maxAgeSeconds}`
}

export function clearImpersonationCookie(cookie: ImpersonationCookie): string {
  return `${cookie.name}=; ${attributes(cookie)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`
}

/** The cookie's value in a `Cookie` header; undefined when absent or sent twice (never guessed). */
export function readImpersonationCookie(
  cookie: ImpersonationCookie,
  header: string | readonly string[] | undefined,
): string | undefined {
  if (header === undefined) return undefined
  const lines = typeof header === 'string' ? [header] : header
  let found: string | undefined
  for (const line of lines) {
    if (typeof line !== 'string') continue
    for (const part of line.split(';')) {
      const pair = part.replace(/^[ \t]+|[ \t]+$/g, '')
      const equals = pair.indexOf('=')
      if (equals < 0 || pair.slice(0, equals) !== cookie.name) continue
      if (found !== undefined) return undefined
      found = pair.slice(equals + 1)
    }
  }
  return found === '' ? undefined : found
}
