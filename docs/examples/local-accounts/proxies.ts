// Behind a load balancer: believe X-Forwarded-For only from your own proxies. The client address for
// rate limits and events is then the rightmost hop that is not a trusted proxy, never the leftmost.
import type { LocalAccountsOptions } from '@portcullis/core/local-accounts'

// #region rate-limits-and-client-addresses
export const behindTheBalancer: Pick<LocalAccountsOptions, 'trustedProxies' | 'rateLimit'> = {
  trustedProxies: ['10.0.0.0/8', 'fd00::/8'],
  rateLimit: {
    // Per username, before any hashing.
    perAccount: { limit: 10, windowSeconds: 900 },
    // Per client, across usernames (and registrations).
    perAddress: { limit: 100, windowSeconds: 900 },
    // An IPv6 client is its /64 (the default): every address of one /64 shares one budget.
    ipv6PrefixLength: 64,
  },
}
// #endregion rate-limits-and-client-addresses
