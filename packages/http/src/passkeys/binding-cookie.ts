/** The HttpOnly cookie that binds a passkey ceremony's challenge to the browser that began it. */
export const PASSKEY_BINDING_COOKIE = '__Host-portcullis-passkey'

const VALUE = /(?:^|;\s*)__Host-portcullis-passkey=([\w-]{16,128})(?:;|$)/

/**
 * The browser binding a `Cookie` header carries; undefined when absent or malformed (the ceremony then
 * mints a fresh one).
 */
export function browserBindingFrom(cookieHeader: string | undefined): string | undefined {
  return VALUE.exec(cookieHeader ?? '')?.[1]
}

/** The `Set-Cookie` value of a new ceremony's binding (`__Host-`: Secure, Path=/, no Domain; HttpOnly). */
export function browserBindingCookie(value: string, maxAgeSeconds: number): string {
  return `${PASSKEY_BINDING_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAgeSeconds}`
}
