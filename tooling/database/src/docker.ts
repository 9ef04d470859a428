import { existsSync } from 'node:fs'
import { request } from 'node:http'

/** Where a Docker engine may listen: `DOCKER_HOST` (unix socket) or the default socket. */
function dockerSocketPath(): string | undefined {
  const host = process.env.DOCKER_HOST
  if (host?.startsWith('unix://')) return host.slice('unix://'.length)
  if (host) return undefined
  return existsSync('/var/run/docker.sock') ? '/var/run/docker.sock' : undefined
}

/** True when a Docker engine answers `GET /_ping` within the timeout (a client binary alone is not enough). */
export function dockerEngineAnswers(timeoutMs = 1500): Promise<boolean> {
  const socketPath = dockerSocketPath()
  if (socketPath === undefined) return Promise.resolve(false)
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('timeout', () => {
      req.destroy()
      resolve(false)
    })
    req.on('error', () => resolve(false))
    req.end()
  })
}
