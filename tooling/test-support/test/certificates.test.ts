// The run-time certificate: a TLS server with it is trusted by a client given it as CA, for 127.0.0.1 and
// the extra names; a second certificate (another key) is not.
import { once } from 'node:events'
import { createServer, request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { loopbackCertificate } from '../src/certificates.js'

function get(port: number, ca: string, servername?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const call = request(
      { host: '127.0.0.1', port, path: '/', ca, ...(servername === undefined ? {} : { servername }) },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      },
    )
    call.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    call.end()
  })
}

describe('loopbackCertificate', () => {
  it('is trusted for its own names by a client that takes it as CA; another one is not', async () => {
    const trusted = loopbackCertificate({ commonName: 'portcullis test', extraNames: ['DNS:docs.test'] })
    const impostor = loopbackCertificate({ commonName: 'portcullis test' })
    expect(trusted.key).toMatch(/^-----BEGIN PRIVATE KEY-----/)
    expect(trusted.cert).not.toBe(impostor.cert)
    const server = createServer(trusted, (_req, res) => res.end('ok')).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    try {
      expect(await get(port, trusted.cert)).toBe(200)
      expect(await get(port, trusted.cert, 'docs.test')).toBe(200)
      expect(await get(port, trusted.cert, 'other.test')).toBe('ERR_TLS_CERT_ALTNAME_INVALID')
      expect(await get(port, impostor.cert)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
