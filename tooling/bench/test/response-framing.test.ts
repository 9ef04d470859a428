import { describe, expect, it } from 'vitest'
import { ResponseFraming } from '../src/response-framing.js'

const bytes = (text: string) => Buffer.from(text, 'latin1')

/** Feeds `text` one byte at a time: a split can fall anywhere. */
function byteByByte(framing: ResponseFraming, text: string): number[] {
  const statuses: number[] = []
  for (const byte of bytes(text)) statuses.push(...framing.push(Buffer.from([byte])))
  return statuses
}

const fixed =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{"items":[1,2,3]}'
const chunked =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nB\r\n, world!!!!\r\n0\r\n\r\n'

describe('ResponseFraming', () => {
  it('frames a Content-Length response only once its whole body arrived', () => {
    const framing = new ResponseFraming()
    expect(framing.push(bytes(fixed.slice(0, -1)))).toEqual([])
    expect(framing.push(bytes(fixed.slice(-1)))).toEqual([200])
  })

  it('frames chunked responses, with and without trailers, split at every byte', () => {
    const withTrailers = chunked.replace('0\r\n\r\n', '0\r\nX-Checksum: abc\r\n\r\n')
    expect(byteByByte(new ResponseFraming(), chunked)).toEqual([200])
    expect(byteByByte(new ResponseFraming(), withTrailers)).toEqual([200])
  })

  it('counts several responses in one read, keeping their order and statuses', () => {
    const notFound = 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n'
    const noContent = 'HTTP/1.1 204 No Content\r\n\r\n'
    expect(new ResponseFraming().push(bytes(fixed + notFound + noContent + chunked))).toEqual([
      200, 404, 204, 200,
    ])
  })

  it('does not mistake a body that looks like headers for the end of a response', () => {
    const body = 'HTTP/1.1 500 X\r\n\r\n'
    const response = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    expect(byteByByte(new ResponseFraming(), response)).toEqual([200])
  })

  it('refuses what it cannot frame instead of guessing', () => {
    expect(() => new ResponseFraming().push(bytes('garbage\r\n\r\n'))).toThrow(/not an HTTP/)
    expect(() =>
      new ResponseFraming().push(bytes('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody')),
    ).toThrow(/cannot be reused/)
    expect(() =>
      new ResponseFraming().push(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')),
    ).toThrow(/chunk size/)
  })
})
