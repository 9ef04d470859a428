import { html, type SafeHtml } from './html.js'

// Times and browsers as people read them: "3 minutes ago" (the exact time on hover), "Chrome 156 on
// Linux" rather than the raw User-Agent header.

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })
const exact = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })

/** "just now", "3 minutes ago", "in 2 hours", "yesterday", ... relative to `now`. */
export function timeAgo(at: Date, now: Date = new Date()): string {
  const difference = at.getTime() - now.getTime()
  const distance = Math.abs(difference)
  if (distance < 45_000) return 'just now'
  for (const [unit, size] of UNITS) {
    if (distance >= size || unit === 'minute') {
      return relative.format(Math.round(difference / size), unit)
    }
  }
  return 'just now'
}

/** `<time>` with the relative wording, the exact UTC time on hover and the ISO instant for machines. */
export function readableTime(at: Date, now: Date = new Date()): SafeHtml {
  return html`<time datetime="${at.toISOString()}" title="${exact.format(at)} UTC">${timeAgo(at, now)}</time>`
}

const BROWSERS: readonly [name: string, pattern: RegExp][] = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)[^)]*\bSafari\//],
  ['curl', /^curl\/(\d+)/],
]
const SYSTEMS: readonly [name: string, pattern: RegExp][] = [
  ['Android', /\bAndroid\b/],
  ['iOS', /\b(?:iPhone|iPad|iPod)\b/],
  ['Windows', /\bWindows\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b/],
]

/** "Chrome 156 on Linux", "Firefox 140 on Windows", "Safari 18 on iOS"; "Unknown browser" otherwise. */
export function browserName(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent.trim() === '') return 'Unknown browser'
  const browser = BROWSERS.find(([, pattern]) => pattern.test(userAgent))
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0]
  const version = browser === undefined ? undefined : browser[1].exec(userAgent)?.[1]
  const name = browser === undefined ? 'Unknown browser' : `${browser[0]} ${version ?? ''}`.trim()
  return system === undefined ? name : `${name} on ${system}`
}
