import { createServer, type Server, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FaultProxy, startFaultProxy } from '../src/fault-proxy.js'

/**
 * The fault proxy over a TCP echo server: a stall holds bytes and loses none, including the first bytes
 * of connections opened during the stall and resumed before the proxy's own upstream connection is up
 * (a Postgres client's startup message: lost, the connection would wait out its connect timeout).
 */
let echo: Server
let proxy: FaultProxy

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket))
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
  const address = echo.address()
  proxy = await startFaultProxy({
    targetHost: '127.0.0.1',
    targetPort: typeof address === 'object' && address !== null ? address.port : 0,
  })
})
afterAll(async () => {
  await proxy?.close()
  await new Promise<void>((resolve) => echo.close(() => resolve()))
})

/** Connects through the proxy, sends `text` at once, and resolves with what comes back (or a timeout). */
function roundTrip(text: string, onConnect: () => void = () => undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket = new Socket()
    let received = ''
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(`timeout after "${received}"`)
    }, 3_000)
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8')
      if (received.length >= text.length) {
        clearTimeout(timer)
        socket.destroy()
        resolve(received)
      }
    })
    socket.connect(proxy.port, proxy.host, () => {
      socket.write(text)
      onConnect()
    })
  })
}

describe('the fault proxy', () => {
  it('forwards both ways', async () => {
    expect(await roundTrip('hello')).toBe('hello')
  })

  it('holds bytes while stalled and delivers them on resume', async () => {
    proxy.stall()
    const pending = roundTrip('held')
    await new Promise((resolve) => setTimeout(resolve, 300))
    proxy.resume()
    expect(await pending).toBe('held')
  })

  it('loses no first bytes of connections resumed before their upstream is connected', async () => {
    // Each connection opens during a stall and the stall ends the moment it is open: the proxy has
    // accepted it (or is about to) but its own upstream connection may not be up yet.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        proxy.stall()
        return roundTrip(`startup-${index}`, () => proxy.resume())
      }),
    )
    proxy.resume()
    expect(answers).toEqual(Array.from({ length: 20 }, (_, index) => `startup-${index}`))
  })
})
