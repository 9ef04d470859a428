// The pure parts of the k-anonymity range client: how the password is hashed and split, how a range
// answer is read (padding, malformed lines), and the settings refused at startup. The client against a
// real loopback range server is tested in @portcullis/password-blocklist (core runs no server).
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { TEST_COMMON_PASSWORDS } from '../../../test/support/local-accounts.js'
import { blocklistPasswordScreen } from './blocklist-screen.js'
import { countInRange, rangeParts, rangePasswordScreen } from './range-screen.js'

const sha1 = (value: string) => createHash('sha1').update(value, 'utf8').digest('hex').toUpperCase()
const fallback = blocklistPasswordScreen({ passwords: TEST_COMMON_PASSWORDS })

describe('rangeParts and countInRange', () => {
  it('hashes the password as typed (UTF-8), upper-case hex, split 5 + 35', () => {
    const { prefix, suffix } = rangeParts('password')
    expect(prefix).toBe('5BAA6')
    expect(suffix).toBe('1E4C9B93F3F0682250B6CF8331B7EE68FD8')
    expect(rangeParts('pässwörd').prefix).toBe(sha1('pässwörd').slice(0, 5))
  })

  it('ignores padding lines (count 0) and malformed lines; an answer of only garbage is no answer', () => {
    const clean = rangeParts('nobody has ever typed this one').suffix
    expect(countInRange(`${clean}:0\r\nABC:1`, clean)).toBe(0)
    const { suffix } = rangeParts('a phrase leaked in 2019 breach')
    expect(countInRange(`${suffix}:0\n${suffix.toLowerCase()}:5\n${suffix}:0`, suffix)).toBe(5)
    expect(countInRange(`not a line\n${suffix}:lots\n${suffix}:7`, suffix)).toBe(7)
    expect(countInRange('', suffix)).toBe(0)
    expect(() => countInRange('<html>maintenance</html>\n<p>soon</p>', suffix)).toThrow(/unavailable/)
  })
})

describe('rangePasswordScreen settings', () => {
  it('refuses bad settings at startup, and a screen without its offline fallback', () => {
    expect(() => rangePasswordScreen({ endpoint: 'not a url', fallback })).toThrow(/absolute URL/)
    expect(() => rangePasswordScreen({ endpoint: 'https://range.example/range/?x=1', fallback })).toThrow(
      /query/,
    )
    expect(() => rangePasswordScreen({ endpoint: 'https://range.example/range', fallback })).toThrow(
      /end with/,
    )
    expect(() => rangePasswordScreen({ minimumCount: 0, fallback })).toThrow(/minimumCount/)
    expect(() => rangePasswordScreen({ whenUnavailable: 'maybe' as 'refuse', fallback })).toThrow(
      /whenUnavailable/,
    )
    expect(() => rangePasswordScreen({} as never)).toThrow(/needs fallback/)
    expect(() => rangePasswordScreen({ fallback: {} } as never)).toThrow(/needs fallback/)
    expect(() => rangePasswordScreen(undefined as never)).toThrow(/needs fallback/)
  })
})
