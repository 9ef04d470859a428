// The key a per-address limit counts a client under, as the docs show it.
import { clientRateLimitKey } from '@portcullis/core/local-accounts'
import { expect, it } from 'vitest'

it('counts IPv4 by address, IPv6 by network, and every unknown address together', () => {
  // #region rate-limit-key
  expect(clientRateLimitKey('203.0.113.7')).toBe('203.0.113.7')
  expect(clientRateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
  expect(clientRateLimitKey('2001:db8:1:2:a:b:c:d')).toBe('2001:db8:1:2::/64')
  expect(clientRateLimitKey('2001:db8:1:2:a:b:c:d', { ipv6PrefixLength: 48 })).toBe('2001:db8:1::/48')
  expect(clientRateLimitKey(undefined)).toBe('unknown')
  // #endregion rate-limit-key
})
