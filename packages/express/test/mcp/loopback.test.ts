import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import express, { type Express } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMCPEndpoint, type MCPEndpointOptions, mcpResource } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

// How the in-process GET behaves for the ways Express handlers produce responses.
let directory: string
const FILE_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10])

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portcullis-mcp-loopback-'))
  await writeFile(join(directory, 'image.png'), FILE_BYTES)
})

afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

async function appWith(declare: (app: Express) => void, options: MCPEndpointOptions = {}) {
  const app = express()
  const mcp = createMCPEndpoint({ serverInfo: { name: 'loopback', version: '1' }, ...options })
  app.use(mcp)
  declare(app)
  await mcp.attach(app)
  return app
}

const read = async (app: Express, uri: string, headers: Record<string, string> = {}) =>
  (await rpc(app, call('resources/read', { uri }), headers)).body

describe('in-process reads', () => {
  it('captures a file sent with res.sendFile as a blob with its content type', async () => {
    const app = await appWith((target) => {
      target.get(
        '/image',
        mcpResource('image')((_req, res) => res.sendFile(join(directory, 'image.png'))),
      )
    })
    const body = await read(app, 'express://image')
    expect(body.result.contents).toEqual([
      { uri: 'express://image', mimeType: 'image/png', blob: FILE_BYTES.toString('base64') },
    ])
  })

  it('gives middleware a socket stand-in it can configure or destroy without touching the caller', async () => {
    const app = await appWith((target) => {
      target.get(
        '/socket',
        (req, _res, next) => {
          req.setTimeout(5_000)
          req.socket.setNoDelay(true)
          req.socket.setKeepAlive(true)
          req.socket.destroy()
          next()
        },
        mcpResource('socket', { mimeType: 'application/json' })((req, res) => {
          res.json({ protocol: req.protocol, secure: req.secure, ip: req.ip, readable: req.socket.readable })
        }),
      )
    })
    const first = await read(app, 'express://socket')
    const seen = JSON.parse(first.result.contents[0].text)
    expect(seen).toMatchObject({ protocol: 'http', secure: false, readable: false })
    expect(seen.ip).toMatch(/(^|:)127\.0\.0\.1$|^::1$/)
    // the caller's own connection survived: a second read on the same app still answers
    expect((await read(app, 'express://socket')).result.contents).toHaveLength(1)
  })

  it('captures a piped stream written in several chunks', async () => {
    const app = await appWith((target) => {
      target.get(
        '/stream',
        mcpResource('stream', { mimeType: 'text/plain' })((_req, res) => {
          Readable.from(['alpha ', 'beta ', Buffer.from('gamma')]).pipe(res)
        }),
      )
    })
    const body = await read(app, 'express://stream')
    expect(body.result.contents).toEqual([
      { uri: 'express://stream', mimeType: 'text/plain', text: 'alpha beta gamma' },
    ])
  })

  it('captures headers given to writeHead and the declared mime type as fallback', async () => {
    const app = await appWith((target) => {
      target.get(
        '/raw',
        mcpResource('raw')((_req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8' })
          res.end('a,b\n1,2\n')
        }),
      )
      target.get(
        '/untyped',
        mcpResource('untyped', { mimeType: 'text/markdown' })((_req, res) => {
          res.end('# Title')
        }),
      )
    })
    expect((await read(app, 'express://raw')).result.contents[0]).toMatchObject({
      mimeType: 'text/csv',
      text: 'a,b\n1,2\n',
    })
    expect((await read(app, 'express://untyped')).result.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: '# Title',
    })
  })

  it('sees headers a middleware sets while the head is written (on-headers style)', async () => {
    const app = await appWith((target) => {
      target.use((_req, res, next) => {
        const writeHead = res.writeHead
        res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
          res.setHeader('Content-Type', 'text/plain; charset=utf-8')
          return writeHead.apply(this, args)
        } as typeof writeHead
        next()
      })
      target.get(
        '/late',
        mcpResource('late')((_req, res) => {
          res.status(200).end('typed late')
        }),
      )
    })
    expect((await read(app, 'express://late')).result.contents).toEqual([
      { uri: 'express://late', mimeType: 'text/plain', text: 'typed late' },
    ])
  })

  it('emits finish for logging middleware, with the final status', async () => {
    const logged: string[] = []
    const app = await appWith((target) => {
      target.use((req, res, next) => {
        res.on('finish', () => logged.push(`${req.method} ${req.originalUrl} ${res.statusCode}`))
        next()
      })
      target.get(
        '/teapot',
        mcpResource('teapot')((_req, res) => {
          res.status(418).json({ short: 'stout' })
        }),
      )
    })
    await read(app, 'express://teapot')
    await new Promise((resolve) => setImmediate(resolve))
    expect(logged).toContain('GET /teapot 418')
  })

  it('fails a read whose route never answers with statusCode 504', async () => {
    const app = await appWith(
      (target) => {
        target.get(
          '/hang',
          mcpResource('hang')(() => undefined),
        )
      },
      { readTimeoutMs: 50 },
    )
    expect((await read(app, 'express://hang')).error).toMatchObject({
      code: -32603,
      data: { statusCode: 504 },
    })
  })

  it('fails a read larger than maxResourceBytes with statusCode 413', async () => {
    const app = await appWith(
      (target) => {
        target.get(
          '/big',
          mcpResource('big')((_req, res) => {
            res.type('application/octet-stream').send(Buffer.alloc(2048))
          }),
        )
      },
      { maxResourceBytes: 1024 },
    )
    expect((await read(app, 'express://big')).error).toMatchObject({
      code: -32603,
      data: { statusCode: 413 },
    })
  })

  it('renders an async rejection with no error handler as a 500 problem, never a stack or HTML', async () => {
    const app = await appWith((target) => {
      target.get(
        '/reject',
        mcpResource('reject')(async () => {
          throw Object.assign(new Error('token=hunter2'), { status: 418 })
        }),
      )
    })
    const body = await read(app, 'express://reject')
    expect(body.error).toEqual({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 418, content: { type: 'about:blank', title: 'Resource read failed', status: 418 } },
    })
    expect(JSON.stringify(body)).not.toContain('hunter2')
  })

  it('fails promptly when a route errors after writing its head', async () => {
    const app = await appWith(
      (target) => {
        target.get(
          '/partial',
          mcpResource('partial')((_req, res, next) => {
            res.writeHead(200, { 'Content-Type': 'text/plain' })
            res.write('half of')
            next(new Error('stream broke'))
          }),
        )
      },
      { readTimeoutMs: 60_000 },
    )
    const body = await read(app, 'express://partial')
    expect(body.error).toMatchObject({ code: -32603, data: { statusCode: 500 } })
  })

  it('drops conditional, encoding and transport headers of the MCP request', async () => {
    let received: Record<string, string | string[] | undefined> = {}
    const app = await appWith((target) => {
      target.get(
        '/headers',
        mcpResource('headers')((req, res) => {
          received = req.headers
          res.json({ ok: true })
        }),
      )
    })
    await read(app, 'express://headers', {
      'If-None-Match': '"etag"',
      'Accept-Encoding': 'gzip',
      'X-Tenant-Hint': 'acme',
      Cookie: 'session=abc',
    })
    expect(received['if-none-match']).toBeUndefined()
    expect(received['accept-encoding']).toBeUndefined()
    expect(received['mcp-protocol-version']).toBeUndefined()
    expect(received['content-type']).toBeUndefined()
    expect(received.accept).toBe('*/*')
    expect(received['x-tenant-hint']).toBe('acme')
    expect(received.cookie).toBe('session=abc')
  })

  it('answers a read of a route the app no longer matches as statusCode 404', async () => {
    const app = await appWith((target) => {
      target.get(
        '/gated',
        (_req, _res, next) => next('route'),
        mcpResource('gated')((_req, res) => {
          res.json({})
        }),
      )
    })
    // the first handler skips the marked one, so nothing answers the GET
    const body = await read(app, 'express://gated')
    expect(body.error).toMatchObject({ code: -32603, data: { statusCode: 404 } })
  })
})
