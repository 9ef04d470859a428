import type Provider from 'oidc-provider'
import type { ConsentScope, ConsentView } from './consent-view.js'

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

/** What the consent prompt found missing from the user's grant to this client. */
export interface MissingConsent {
  readonly oidcScopes: readonly string[]
  readonly oidcClaims: readonly string[]
  readonly resourceScopes: Readonly<Record<string, readonly string[]>>
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []

/** The consent prompt's `missingOIDCScope`, `missingOIDCClaims` and `missingResourceScopes`. */
export function missingConsentOf(details: Details): MissingConsent {
  const prompt = (details.prompt?.details ?? {}) as Record<string, unknown>
  const resourceScopes: Record<string, readonly string[]> = {}
  const resources = prompt.missingResourceScopes
  if (typeof resources === 'object' && resources !== null) {
    for (const [indicator, scopes] of Object.entries(resources)) {
      const list = strings(scopes)
      if (list.length > 0) resourceScopes[indicator] = list
    }
  }
  return {
    oidcScopes: strings(prompt.missingOIDCScope),
    oidcClaims: strings(prompt.missingOIDCClaims),
    resourceScopes,
  }
}

export function nothingMissing(missing: MissingConsent): boolean {
  return (
    missing.oidcScopes.length === 0 &&
    missing.oidcClaims.length === 0 &&
    Object.keys(missing.resourceScopes).length === 0
  )
}

/** The payload field of a `Grant` entry that keeps the client as the consent page showed it. */
export const CONSENTED_CLIENT_FIELD = 'consentedClient'

/** The client as the consent page showed it: kept with the grant, for the "Connected apps" page. */
export interface ConsentedClient {
  readonly name: string | undefined
  readonly host: string | undefined
}

/** A grant with the missing consent added, not yet saved. */
export interface PreparedGrant {
  readonly grantId: string
  /**
   * True when the approval creates the grant (no grant of this account to this client was found): the
   * client connects now. False when it adds to the grant the client holds.
   */
  readonly isNew: boolean
  /** Saves the grant (one write), the client as shown at consent in its entry. */
  save(): Promise<void>
}

type GrantWithPayload = InstanceType<Provider['Grant']> & {
  jti?: string
  generateTokenId(): string
  getValueAndPayload(): Promise<{ value: unknown; payload?: Record<string, unknown> }>
}

/**
 * Adds exactly the missing scopes and claims to the user's grant to this client (a new grant when there
 * is none, or when the interaction's grant belongs to someone else). Nothing is saved until `save`: the
 * caller saves it only once the authorization's redirect is ready to be sent.
 */
export async function prepareGrant(
  provider: Provider,
  details: Details,
  accountId: string,
  missing: MissingConsent,
  client: ConsentedClient,
): Promise<PreparedGrant> {
  const clientId = String(details.params.client_id)
  const existing = details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)
  const reused = existing !== undefined && existing.accountId === accountId && existing.clientId === clientId
  const grant = (reused ? existing : new provider.Grant({ accountId, clientId })) as GrantWithPayload
  if (missing.oidcScopes.length > 0) grant.addOIDCScope(missing.oidcScopes.join(' '))
  if (missing.oidcClaims.length > 0) grant.addOIDCClaims([...missing.oidcClaims])
  for (const [indicator, scopes] of Object.entries(missing.resourceScopes)) {
    grant.addResourceScope(indicator, scopes.join(' '))
  }
  grant.jti ??= grant.generateTokenId()
  // oidc-provider saves only the fields its model knows: the shown client joins the payload it writes.
  const payloadOf = grant.getValueAndPayload.bind(grant)
  const shown = {
    ...(client.name === undefined ? {} : { name: client.name }),
    ...(client.host === undefined ? {} : { host: client.host }),
  }
  grant.getValueAndPayload = async () => {
    const result = await payloadOf()
    return result.payload === undefined
      ? result
      : { ...result, payload: { ...result.payload, [CONSENTED_CLIENT_FIELD]: shown } }
  }
  return {
    grantId: grant.jti,
    isNew: !reused,
    save: async () => {
      await grant.save()
    },
  }
}

function hostOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : undefined
  } catch {
    return undefined
  }
}

export interface ConsentViewInput {
  readonly details: Details
  readonly clientName: string | undefined
  readonly accountId: string
  readonly accountName: string | undefined
  readonly missing: MissingConsent
  readonly descriptions: Readonly<Record<string, string>>
  readonly action: string
  readonly csrfToken: string
}

/** The consent page's view: the missing scopes to approve, what is already granted, the resources. */
export function consentView(input: ConsentViewInput): ConsentView {
  const { details, missing } = input
  const params = details.params as Record<string, unknown>
  const describe = (name: string): ConsentScope => ({
    name,
    description: Object.hasOwn(input.descriptions, name) ? input.descriptions[name] : undefined,
  })
  const asked = new Set([...missing.oidcScopes, ...Object.values(missing.resourceScopes).flat()])
  const requested = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : []
  const resources = new Set(Object.keys(missing.resourceScopes))
  for (const resource of [params.resource].flat()) {
    if (typeof resource === 'string') resources.add(resource)
  }
  return {
    uid: details.uid,
    action: input.action,
    csrfToken: input.csrfToken,
    client: {
      id: String(params.client_id),
      name: input.clientName,
      idHost: hostOf(params.client_id),
      redirectHost: hostOf(params.redirect_uri),
    },
    accountId: input.accountId,
    accountName: input.accountName ?? input.accountId,
    scopes: [...asked].map(describe),
    grantedScopes: [...new Set(requested)].filter((scope) => !asked.has(scope)).map(describe),
    resources: [...resources],
  }
}
