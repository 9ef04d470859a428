/** A started impersonation. `setCookies` and `csrfToken` are for the one response that starts it. */
export interface StartedImpersonation {
  readonly impersonationId: string
  readonly accountId: string
  readonly administratorId: string
  readonly expiresAt: Date
  /** The impersonation session's cookie and the impersonation cookie. */
  readonly setCookies: readonly string[]
  /** The synchronizer token of the impersonation session. */
  readonly csrfToken: string
}

/** An ended impersonation: the administrator's own session is handed back (`setCookies`). */
export interface EndedImpersonation {
  readonly impersonationId: string
  readonly accountId: string
  readonly administratorId: string
  readonly setCookies: readonly string[]
  /** The synchronizer token of the administrator's own session. */
  readonly csrfToken: string
}

/** Freezes `value`; its `toJSON` and `util.inspect` forms show `[redacted]` for `secrets`. */
export function hidden<T extends object>(value: T, secrets: readonly (keyof T & string)[]): T {
  const visible = () => {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
    for (const key of secrets) copy[key] = '[redacted]'
    return copy
  }
  Object.defineProperties(value, {
    toJSON: { value: visible, enumerable: false },
    [Symbol.for('nodejs.util.inspect.custom')]: { value: () => visible(), enumerable: false },
  })
  return Object.freeze(value)
}
