import type { SecurityLogDevice } from '@portcullis/core/security-log'
import Bowser from 'bowser'

/** Headers longer than this are cut before parsing (real ones are well under it). */
const MAX_HEADER = 512
const PLATFORMS = new Set(['desktop', 'mobile', 'tablet', 'tv', 'bot'])

const joined = (name: string | undefined, version: string | undefined): string | null => {
  if (name === undefined || name === '') return null
  return version === undefined || version === '' ? name : `${name} ${version}`
}

/** `131.0.0.0` -> `131`, `18.1` -> `18.1`: enough to tell versions apart, not a fingerprint. */
const shortVersion = (version: string | undefined): string | undefined =>
  version
    ?.split('.')
    .slice(0, 2)
    .filter((part, index) => index === 0 || part !== '0')
    .join('.')

/**
 * A device description of a `User-Agent` header, with `bowser` (MIT): `{ browser: 'Chrome 131', os:
 * 'Windows 10', platform: 'desktop' }`. Null for an empty header or one nothing is recognised in; never
 * throws. Pass it as `describeUserAgent` to `SecurityLogWriter`.
 */
export function describeUserAgent(userAgent: string): SecurityLogDevice | null {
  if (typeof userAgent !== 'string' || userAgent.trim() === '') return null
  let parsed: Bowser.Parser.ParsedResult
  try {
    parsed = Bowser.parse(userAgent.slice(0, MAX_HEADER))
  } catch {
    return null
  }
  const browser = joined(parsed.browser.name, shortVersion(parsed.browser.version))
  const os = joined(parsed.os.name, parsed.os.versionName ?? shortVersion(parsed.os.version))
  const type = parsed.platform.type
  const platform = type !== undefined && PLATFORMS.has(type) ? type : null
  if (browser === null && os === null && platform === null) return null
  return { browser, os, platform }
}
