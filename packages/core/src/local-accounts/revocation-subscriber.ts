import type { RevocationNotice } from '../revocation/notice.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { LocalRuntime } from './runtime.js'
import type { SessionManager } from './sessions/session-manager.js'
import type { TokenManager } from './tokens/token-manager.js'

/**
 * Subscribes the caches of one `LocalAccounts` to revocation notices: a session notice drops that
 * session, an account notice drops the account's epoch and sessions, a family notice refuses the
 * family's access tokens, and a flush drops everything. Every notice moves the caches' generation first,
 * so a store read in flight is not cached over the eviction. Returns the unsubscribe function.
 */
export function subscribeLocalCaches(
  notices: RevocationNotices,
  parts: {
    readonly runtime: LocalRuntime
    readonly sessions: SessionManager | undefined
    readonly tokens: TokenManager | undefined
  },
): () => void {
  const { runtime, sessions, tokens } = parts
  return notices.subscribe({
    revoked(notice: RevocationNotice) {
      if (notice.kind === 'api-key') return
      runtime.trust.moved()
      switch (notice.kind) {
        case 'session':
          sessions?.evict(notice.digest)
          return
        case 'account':
          runtime.epochs.forget(notice.accountId)
          sessions?.evictAccount(notice.accountId)
          return
        case 'refresh-family':
          tokens?.familyRevoked(notice.familyId)
          return
      }
    },
    flush() {
      runtime.trust.moved()
      runtime.epochs.clear()
      sessions?.flush()
    },
  })
}
