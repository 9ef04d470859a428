import type { SignInMethod } from '@portcullis/core/accounts'
import { HttpProblem } from '../problem/problem.js'

const invalid = (detail: string) => new HttpProblem({ status: 400, code: 'account.invalid_request', detail })

/**
 * The string members of a parsed JSON or form body: every `required` one present, nothing outside
 * `required` and `optional`. The detail names the member and the rule, never the value.
 */
export function fieldsOf<Required extends string, Optional extends string>(
  body: unknown,
  required: readonly Required[],
  optional: readonly Optional[],
): Record<Required, string> & Partial<Record<Optional, string>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the body must be a JSON object or a form')
  }
  const known = new Set<string>([...required, ...optional])
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(body)) {
    if (!known.has(name)) throw invalid(`${name} is not a member of this request`)
    if (typeof value !== 'string') throw invalid(`${name} must be a string`)
    fields[name] = value
  }
  for (const name of required) if (fields[name] === undefined) throw invalid(`${name} is required`)
  return fields as Record<Required, string> & Partial<Record<Optional, string>>
}

/** A same-origin path (`/...`, never `//host` or a backslash trick), or undefined. */
export function localPath(value: unknown): string | undefined {
  return typeof value === 'string' &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    value.length <= 2048 &&
    !/[\s\\]/.test(value)
    ? value
    : undefined
}

/** The JSON form of a sign-in method (no hash, no tokens, no public key). */
export function methodBody(method: SignInMethod): Record<string, unknown> {
  switch (method.kind) {
    case 'password':
      return {
        kind: 'password',
        username: method.username,
        createdAt: method.createdAt.toISOString(),
        passwordChangedAt: method.passwordChangedAt.toISOString(),
      }
    case 'identity':
      return {
        kind: 'identity',
        provider: method.provider,
        providerAccountId: method.providerAccountId,
        issuer: method.issuer,
        subject: method.subject,
        linkedAt: method.linkedAt.toISOString(),
      }
    case 'passkey':
      return {
        kind: 'passkey',
        credentialId: method.credentialId,
        name: method.name,
        createdAt: method.createdAt.toISOString(),
        lastUsedAt: method.lastUsedAt?.toISOString() ?? null,
      }
  }
}
