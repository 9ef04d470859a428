/**
 * Stable, machine-readable error codes. A code never changes meaning once published;
 * HTTP adapters map the code's class to a status (401, 403, 409, 400, 429, 503).
 */
export type ErrorClass =
  | 'configuration'
  | 'invalid-input'
  | 'unauthenticated'
  | 'forbidden'
  | 'conflict'
  | 'rate-limited'
  | 'unavailable'

export interface PortcullisErrorOptions {
  /** The lower-level cause; kept for diagnostics, never rendered to clients. */
  readonly cause?: unknown
}

/**
 * The one error base class of `@portcullis/core`. Every error the library throws on purpose is a
 * `PortcullisError` with a stable string `code` and an error class. Messages are written to be safe
 * to log: they never contain secrets, tokens or key material.
 */
export class PortcullisError extends Error {
  readonly code: string
  readonly errorClass: ErrorClass

  constructor(code: string, errorClass: ErrorClass, message: string, options: PortcullisErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.errorClass = errorClass
  }

  /** A JSON form without the cause chain or stack, safe to log. */
  toJSON(): { name: string; code: string; errorClass: ErrorClass; message: string } {
    return { name: this.name, code: this.code, errorClass: this.errorClass, message: this.message }
  }
}

export interface ConfigurationErrorOptions extends PortcullisErrorOptions {
  /** Path of the offending option, `createMCPEndpoint.someUnknownOption`: names only, never values. */
  readonly option?: string
}

/** Wrong or missing configuration detected at startup (bad key length, unknown mechanism, ...). */
export class ConfigurationError extends PortcullisError {
  /** Path of the offending option when one is to blame (`createSecurity.openapi.info`). */
  declare readonly option?: string

  constructor(code: string, message: string, options: ConfigurationErrorOptions = {}) {
    super(code, 'configuration', message, options)
    if (options.option !== undefined) this.option = options.option
  }

  /** The JSON form, with the option path when there is one. */
  override toJSON(): {
    name: string
    code: string
    errorClass: ErrorClass
    message: string
    option?: string
  } {
    const json = super.toJSON()
    return this.option === undefined ? json : { ...json, option: this.option }
  }
}

/** Malformed input supplied at run time (blank id, bad date, malformed envelope, ...). */
export class InvalidInputError extends PortcullisError {
  constructor(code: string, message: string, options: PortcullisErrorOptions = {}) {
    super(code, 'invalid-input', message, options)
  }
}

/** Narrowing helper that works across realms and duplicated package copies. */
export function isPortcullisError(value: unknown): value is PortcullisError {
  return (
    value instanceof PortcullisError ||
    (value instanceof Error &&
      typeof (value as { code?: unknown }).code === 'string' &&
      typeof (value as { errorClass?: unknown }).errorClass === 'string')
  )
}
