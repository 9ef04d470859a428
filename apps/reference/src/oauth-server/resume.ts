import { OAUTH_PATH } from './names.js'

/**
 * An upstream sign-in (the demo IdP, a real provider) returns only to fixed paths, so an authorization
 * waiting for a sign-in remembers its interaction in a short-lived cookie and the IdP returns to
 * `CONNECT_RESUME_PATH`, which sends the browser back to it.
 */
export const CONNECT_RESUME_PATH = '/connect/resume'
const COOKIE = 'portcullis-connect'
const INTERACTION = new RegExp(`^${OAUTH_PATH}/interaction/[A-Za-z0-9_-]{1,64}$`)

/** The path when it is an interaction of the authorization server (never another path or site). */
export function interactionPath(value: unknown): string | undefined {
  return typeof value === 'string' && INTERACTION.test(value) ? value : undefined
}

const attributes = (secure: boolean) =>
  `Path=${CONNECT_RESUME_PATH}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`

/** `Set-Cookie` remembering the interaction for ten minutes (an interaction lives that long). */
export function rememberInteraction(path: string, secure: boolean): string {
  return `${COOKIE}=${encodeURIComponent(path)}; Max-Age=600; ${attributes(secure)}`
}

/** `Set-Cookie` forgetting it. */
export function forgetInteraction(secure: boolean): string {
  return `${COOKIE}=; Max-Age=0; ${attributes(secure)}`
}

/** The remembered interaction in a `Cookie` header, when there is exactly one valid one. */
export function rememberedInteraction(header: string | undefined): string | undefined {
  const values = (header ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${COOKIE}=`))
    .map((part) => part.slice(COOKIE.length + 1))
  if (values.length !== 1) return undefined
  try {
    return interactionPath(decodeURIComponent(values[0] as string))
  } catch {
    return undefined
  }
}
