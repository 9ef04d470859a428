import type { RouteOptions } from '@portcullis/http/routing'
import { BUILT_IN_ROUTE_OPTIONS } from '@portcullis/http/security'

function distance(left: string, right: string): number {
  const row = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let i = 1; i <= left.length; i += 1) {
    let previous = row[0] as number
    row[0] = i
    for (let j = 1; j <= right.length; j += 1) {
      const saved = row[j] as number
      const cost = left[i - 1] === right[j - 1] ? 0 : 1
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + cost)
      previous = saved
    }
  }
  return row[right.length] as number
}

/**
 * The Portcullis part of a Fastify route `config`. `config` is shared by every plugin of the app (rate
 * limits, caching, ...), so keys of other plugins pass; a key within two edits of a Portcullis key
 * (`gaurds`, `Auth`) is a typo that would silently drop protection, and is handed to the option check,
 * which refuses it with `configuration.unknown_option` (declared `routeOptions` keys pass).
 */
export function portcullisConfig(config: unknown, declared: readonly string[]): RouteOptions {
  if (typeof config !== 'object' || config === null) return {}
  const known = new Set([...BUILT_IN_ROUTE_OPTIONS, ...declared])
  const picked: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    if (known.has(key)) picked[key] = value
    else if (BUILT_IN_ROUTE_OPTIONS.some((name) => distance(key.toLowerCase(), name.toLowerCase()) <= 2)) {
      picked[key] = value
    }
  }
  return picked as RouteOptions
}
