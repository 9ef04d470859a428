import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express, { type Express, type NextFunction, type Request, type Response } from 'express'
import request from 'supertest'
import {
  createMCPEndpoint,
  type MCPEndpoint,
  type MCPEndpointOptions,
  mcpResource,
} from '../../src/mcp/index.js'

/** The bytes of the checklist's `report` resource (`00 01 72 …`, not valid UTF-8). */
export const REPORT_BYTES = Buffer.from([0x00, 0x01, 0x72, 0xff, 0xfe, 0x25, 0x50, 0x44, 0x46])

export const SKILL_MD =
  '---\nname: git-workflow\ndescription: How this team branches, reviews and merges\n---\n# Git workflow\n'

/** A skills directory with `git-workflow/{SKILL.md, references/GUIDE.md, assets/diagram.png}`. */
export async function makeSkillsDirectory(): Promise<{ directory: string; remove: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-mcp-skills-'))
  await mkdir(join(directory, 'git-workflow/references'), { recursive: true })
  await mkdir(join(directory, 'git-workflow/assets'), { recursive: true })
  await writeFile(join(directory, 'git-workflow/SKILL.md'), SKILL_MD)
  await writeFile(join(directory, 'git-workflow/references/GUIDE.md'), '# Guide\nRebase, then merge.\n')
  await writeFile(
    join(directory, 'git-workflow/assets/diagram.png'),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]),
  )
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) }
}

export interface FixtureOptions extends MCPEndpointOptions {
  /** Extra routes declared before the fixture's own. */
  readonly extend?: (app: Express) => void
}

/**
 * The interoperability checklist fixture: scheme `fw`; `config` (JSON), `report` (PDF bytes), template
 * `wf` = `app://w/{wid}/f/{fid}`, a later template `other` = `app://w/{x}/f/{y}`, `flaky` (503) and
 * `boom` (throws). The app ends with a JSON 404 and a problem+json error handler, as a real app would.
 */
export async function checklistApp(
  options: FixtureOptions = {},
): Promise<{ app: Express; mcp: MCPEndpoint }> {
  const { extend, ...endpointOptions } = options
  const app = express()
  const mcp = createMCPEndpoint({
    scheme: 'fw',
    serverInfo: { name: 'checklist', version: '1.0.0' },
    ...endpointOptions,
  })
  app.use(mcp)
  extend?.(app)
  app.get(
    '/config',
    mcpResource('config', { mimeType: 'application/json' })((_req, res) => {
      res.json({ debug: true })
    }),
  )
  app.get(
    '/report',
    mcpResource('report', { mimeType: 'application/pdf' })((_req, res) => {
      res.type('application/pdf').send(REPORT_BYTES)
    }),
  )
  app.get(
    '/workflows/:wid/files/:fid',
    mcpResource('wf', { template: 'app://w/{wid}/f/{fid}', mimeType: 'application/json' })((req, res) => {
      res.json({
        wid: req.params.wid,
        fid: req.params.fid,
        text: `workflow ${req.params.wid} file ${req.params.fid}`,
      })
    }),
  )
  app.get(
    '/other/:x/:y',
    mcpResource('other', { template: 'app://w/{x}/f/{y}' })((req, res) => {
      res.json({ other: true, x: req.params.x, y: req.params.y })
    }),
  )
  app.get(
    '/flaky',
    mcpResource('flaky')((_req, res) => {
      res.status(503).json({ error: 'upstream timeout' })
    }),
  )
  app.get(
    '/boom',
    mcpResource('boom')(() => {
      throw new Error('kaboom at /srv/app/secret.ts:42')
    }),
  )
  app.use((_req: Request, res: Response) => {
    res
      .status(404)
      .type('application/problem+json')
      .json({ type: 'about:blank', title: 'Not Found', status: 404 })
  })
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status ?? 500
    res
      .status(status)
      .type('application/problem+json')
      .json({ type: 'about:blank', title: 'Internal Server Error', status })
  })
  await mcp.attach(app)
  return { app, mcp }
}

export const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-11-25',
} as const

/** POSTs one JSON-RPC message (or raw text) to `/mcp` with the checklist's default headers. */
export function rpc(app: Express, body: unknown, headers: Record<string, string | undefined> = {}) {
  let test = request(app).post('/mcp')
  for (const [name, value] of Object.entries({ ...MCP_HEADERS, ...headers })) {
    if (value !== undefined) test = test.set(name, value)
  }
  return test.send(typeof body === 'string' ? body : JSON.stringify(body))
}

export const call = (method: string, params?: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})
