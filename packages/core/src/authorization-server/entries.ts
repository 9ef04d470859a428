import { InvalidInputError } from '../errors/portcullis-error.js'
import type { OAuthGrantSummary, OAuthServerEntry } from './port.js'

/** What a store indexes of an entry's payload (shared by every implementation). */
export interface OAuthServerEntryIndex {
  readonly grantId: string | undefined
  readonly uid: string | undefined
  readonly userCode: string | undefined
  /** `Grant` entries only. */
  readonly accountId: string | undefined
  readonly clientId: string | undefined
}

const MAX_ID = 255

/** A NUL character or a lone surrogate: no store can keep either in text or JSON (Postgres refuses both). */
const LONE_SURROGATE = /\p{Cs}/u
const storable = (value: string) => !value.includes('\u0000') && !LONE_SURROGATE.test(value)

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_ID && storable(value)
    ? value
    : undefined

/** Whether `value` can be an entry id or an index value (1 to 255 characters, storable): a lookup key. */
export function isEntryKey(value: unknown): value is string {
  return text(value) !== undefined
}

/** The index fields of an entry. */
export function indexOf(entry: OAuthServerEntry): OAuthServerEntryIndex {
  const { payload } = entry
  const grant = entry.model === 'Grant'
  return {
    grantId: grant ? entry.id : text(payload.grantId),
    uid: text(payload.uid),
    userCode: text(payload.userCode),
    accountId: grant ? text(payload.accountId) : undefined,
    clientId: grant ? text(payload.clientId) : undefined,
  }
}

function unstorable(value: unknown): boolean {
  if (typeof value === 'string') return !storable(value)
  if (typeof value !== 'object' || value === null) return false
  return Object.entries(value).some(([key, inner]) => !storable(key) || unstorable(inner))
}

const bad = (message: string) => new InvalidInputError('oauth_server.invalid_entry', message)

/** Checks an entry before any store writes it; throws `oauth_server.invalid_entry`. */
export function checkedEntry(entry: OAuthServerEntry): OAuthServerEntry {
  if (typeof entry !== 'object' || entry === null) throw bad('an entry must be an object')
  if (text(entry.model) === undefined || !/^[A-Za-z]+$/.test(entry.model)) throw bad('model must be a name')
  if (text(entry.id) === undefined)
    throw bad('id must be 1 to 255 characters, without NUL or lone surrogates')
  if (typeof entry.payload !== 'object' || entry.payload === null || Array.isArray(entry.payload)) {
    throw bad('payload must be a JSON object')
  }
  let json: string
  try {
    json = JSON.stringify(entry.payload)
  } catch {
    throw bad('payload must be JSON (no cycle, no BigInt)')
  }
  if (unstorable(JSON.parse(json))) throw bad('payload must not contain a NUL character or a lone surrogate')
  if (
    entry.expiresAt !== undefined &&
    !(entry.expiresAt instanceof Date && Number.isFinite(+entry.expiresAt))
  ) {
    throw bad('expiresAt must be a valid Date or undefined')
  }
  return entry
}

const words = (value: unknown): string[] =>
  typeof value === 'string' ? value.split(' ').filter((word) => word.length > 0) : []

/**
 * A `Grant` entry as a summary: oidc-provider's grant payload keeps the OIDC scope in `openid.scope` and
 * each resource's scope in `resources[url]`.
 */
export function grantSummaryOf(
  entry: OAuthServerEntry,
  createdAt: Date,
  lastUsedAt: Date | undefined,
): OAuthGrantSummary {
  const { payload } = entry
  const scopes = new Set<string>()
  const openid = payload.openid as { scope?: unknown } | undefined
  for (const scope of words(openid?.scope)) scopes.add(scope)
  const resources = (
    typeof payload.resources === 'object' && payload.resources !== null ? payload.resources : {}
  ) as Record<string, unknown>
  for (const scope of Object.values(resources).flatMap(words)) scopes.add(scope)
  // The client as the consent page showed it (`@portcullis/authorization-server` keeps it with the grant).
  const consented = (
    typeof payload.consentedClient === 'object' && payload.consentedClient !== null
      ? payload.consentedClient
      : undefined
  ) as { name?: unknown; host?: unknown } | undefined
  return {
    grantId: entry.id,
    accountId: text(payload.accountId) ?? '',
    clientId: text(payload.clientId) ?? '',
    scopes: [...scopes].sort(),
    resources: Object.keys(resources).sort(),
    createdAt,
    lastUsedAt,
    expiresAt: entry.expiresAt,
    clientName: shown(consented?.name),
    clientHost: shown(consented?.host),
  }
}

/** A name or host the consent page showed: a non-empty string of at most 512 characters, else nothing. */
const shown = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined
