import type { InteractionUser, Reauthentication } from './options.js'

/** The login result oidc-provider receives (`interactionFinished(..., { login })`). */
export interface LoginResult {
  readonly accountId: string
  /** `auth_time`, in seconds since the epoch. */
  readonly ts: number
  readonly amr?: string[]
  readonly acr?: string
}

export type LoginDecision =
  | { readonly kind: 'sign-in' }
  | { readonly kind: 'reauthenticate' }
  | { readonly kind: 'login'; readonly login: LoginResult }

export interface LoginInput {
  readonly user: InteractionUser | undefined
  /** The authorization request's parameters (`prompt`, `max_age`). */
  readonly params: Readonly<Record<string, unknown>>
  /** When the interaction began, in seconds since the epoch: a `prompt=login` proof must be newer. */
  readonly interactionIssuedAt: number
  readonly now: Date
  /** Consumes the reauthentication credential; only called when one is needed. */
  consume(): Promise<Reauthentication | undefined>
}

/** The `max_age` parameter as seconds, or undefined when absent or not a non-negative integer. */
export function maxAgeOf(params: Readonly<Record<string, unknown>>): number | undefined {
  const raw = params.max_age
  const text = typeof raw === 'number' ? String(raw) : raw
  if (typeof text !== 'string' || !/^\d{1,10}$/.test(text)) return undefined
  return Number(text)
}

export function promptsLogin(params: Readonly<Record<string, unknown>>): boolean {
  return typeof params.prompt === 'string' && params.prompt.split(' ').includes('login')
}

/**
 * The login step: the application's session signs the user in, unless the client asked for a fresh
 * authentication (`prompt=login`, or `max_age` shorter than the session's age). Then only a
 * reauthentication consumed now counts, and for `prompt=login` only one newer than the interaction;
 * its time becomes `auth_time`.
 */
export async function decideLogin(input: LoginInput): Promise<LoginDecision> {
  const { user, params, now } = input
  if (user === undefined) return { kind: 'sign-in' }
  const maxAge = maxAgeOf(params)
  const fresh = (at: Date) => maxAge === undefined || now.getTime() - at.getTime() <= maxAge * 1000
  const promptLogin = promptsLogin(params)
  let authenticatedAt = user.authenticatedAt
  let { amr, acr } = user
  if (promptLogin || !fresh(authenticatedAt)) {
    const proof = await input.consume()
    if (proof === undefined) return { kind: 'reauthenticate' }
    const at = proof.authenticatedAt
    const acceptable =
      at instanceof Date &&
      at.getTime() <= now.getTime() &&
      fresh(at) &&
      (!promptLogin || at.getTime() >= input.interactionIssuedAt * 1000)
    if (!acceptable) return { kind: 'reauthenticate' }
    authenticatedAt = at
    amr = proof.amr ?? amr
    acr = proof.acr ?? acr
  }
  return {
    kind: 'login',
    login: {
      accountId: user.accountId,
      ts: Math.floor(authenticatedAt.getTime() / 1000),
      ...(amr === undefined ? {} : { amr: [...amr] }),
      ...(acr === undefined ? {} : { acr }),
    },
  }
}
