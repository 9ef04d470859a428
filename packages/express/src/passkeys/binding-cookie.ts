import type { Request, Response } from 'express'

/** The HttpOnly cookie that binds a passkey ceremony's challenge to the browser that began it. */
export const PASSKEY_BINDING_COOKIE = '__Host-portcullis-passkey'

const VALUE = /(?:^|;\s*)__Host-portcullis-passkey=([\w-]{16,128})(?:;|$)/

/** The browser binding the request carries; undefined when absent or malformed (a fresh one is minted). */
export function browserBindingOf(request: Request): string | undefined {
  return VALUE.exec(request.headers.cookie ?? '')?.[1]
}

/** Sets the binding cookie for a new ceremony (`__Host-`: Secure, Path=/, no Domain). */
export function setBrowserBinding(response: Response, value: string, maxAgeSeconds: number): void {
  response.append(
    'Set-Cookie',
    `${PASSKEY_BINDING_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAgeSeconds}`,
  )
}
