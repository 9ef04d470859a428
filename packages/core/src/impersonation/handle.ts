import { createHash } from 'node:crypto'

/**
 * The first tag slot of every impersonation session's handle. Ordinary handles are random (or start with
 * provider-session digests), so one beginning with these 11 characters is one an impersonation opened.
 */
export const IMPERSONATION_HANDLE_MARKER = 'impersonate'

const TAG_LENGTH = 11
/** marker + administrator tag + 22 random characters (the impersonation id). */
const IMPERSONATION_HANDLE = /^impersonate[A-Za-z0-9_-]{11}([A-Za-z0-9_-]{22})$/

/** Whether a session handle (or step-up session binding) belongs to an impersonation session. */
export function isImpersonationHandle(handle: unknown): boolean {
  return typeof handle === 'string' && handle.startsWith(IMPERSONATION_HANDLE_MARKER)
}

/** The impersonation id an impersonation session's handle carries (its last 22 characters), or undefined. */
export function impersonationIdOf(handle: unknown): string | undefined {
  if (typeof handle !== 'string') return undefined
  return IMPERSONATION_HANDLE.exec(handle)?.[1]
}

/**
 * The second tag slot of an impersonation session's handle: a digest of the administrator's account id,
 * so ending the administrator's sessions can end every impersonation they started without an index.
 */
export function administratorTag(administratorId: string): string {
  return createHash('sha256')
    .update(`portcullis.impersonation.administrator\u0000${administratorId}`, 'utf8')
    .digest('base64url')
    .slice(0, TAG_LENGTH)
}

/** The handle tags that name every impersonation session `administratorId` started. */
export function impersonationTagsOf(administratorId: string): readonly [string, string] {
  return [IMPERSONATION_HANDLE_MARKER, administratorTag(administratorId)]
}
