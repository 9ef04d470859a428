import { describe, expect, it } from 'vitest'
import { browserName, readableTime, timeAgo } from './readable.js'

const NOW = new Date('2031-03-04T12:00:00Z')
const ago = (ms: number) => new Date(NOW.getTime() - ms)

describe('times as people read them', () => {
  it('says just now, minutes, hours, yesterday and older in words', () => {
    expect(timeAgo(ago(10_000), NOW)).toBe('just now')
    expect(timeAgo(ago(3 * 60_000), NOW)).toBe('3 minutes ago')
    expect(timeAgo(ago(2 * 3_600_000), NOW)).toBe('2 hours ago')
    expect(timeAgo(ago(26 * 3_600_000), NOW)).toBe('yesterday')
    expect(timeAgo(ago(40 * 86_400_000), NOW)).toBe('last month')
    expect(timeAgo(new Date(NOW.getTime() + 3 * 3_600_000), NOW)).toBe('in 3 hours')
  })

  it('keeps the exact time on hover and the instant for machines', () => {
    const rendered = readableTime(ago(3 * 60_000), NOW).toString()
    expect(rendered).toBe(
      '<time datetime="2031-03-04T11:57:00.000Z" title="Mar 4, 2031, 11:57:00 AM UTC">3 minutes ago</time>',
    )
  })
})

describe('browsers as people read them', () => {
  it('names the browser, its major version and the system, not the raw User-Agent', () => {
    expect(
      browserName(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome 156 on Linux')
    expect(
      browserName('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0'),
    ).toBe('Firefox 140 on Windows')
    expect(
      browserName(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari 18 on iOS')
    expect(
      browserName(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0',
      ),
    ).toBe('Edge 140 on Windows')
    expect(browserName('curl/8.5.0')).toBe('curl 8')
    expect(browserName(undefined)).toBe('Unknown browser')
    expect(browserName('<script>')).toBe('Unknown browser')
  })
})
