import { describe, expect, it } from 'vitest'
import { describeUserAgent } from './describe.js'

describe('describeUserAgent', () => {
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      { browser: 'Chrome 131', os: 'Windows 10', platform: 'desktop' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      { browser: 'Safari 18.1', os: 'iOS 18.1', platform: 'mobile' },
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      { browser: 'Firefox 133', os: 'Linux', platform: 'desktop' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
      { browser: 'Chrome 131', os: 'Android 15', platform: 'mobile' },
    ],
  ])('names the browser, system and platform of %s', (header, device) => {
    expect(describeUserAgent(header)).toEqual(device)
  })

  it('answers null for an empty or unrecognisable header, and never throws on hostile ones', () => {
    expect(describeUserAgent('')).toBeNull()
    expect(describeUserAgent('   ')).toBeNull()
    expect(describeUserAgent(undefined as never)).toBeNull()
    for (const hostile of ['\u0000\r\n', '('.repeat(100_000), `Mozilla/5.0 ${'x'.repeat(1_000_000)}`]) {
      expect(() => describeUserAgent(hostile)).not.toThrow()
    }
  })

  it('parses only the first 512 characters of a long header', () => {
    const device = describeUserAgent(
      `Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 ${' '.repeat(2_000_000)}`,
    )
    expect(device?.browser).toBe('Firefox 133')
  })
})
