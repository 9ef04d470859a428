import type { Express } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, checklistApp, makeSkillsDirectory, REPORT_BYTES, rpc, SKILL_MD } from './fixture.js'

// Interoperability checklist section 7.3 (reading).
let app: Express
let skilled: Express
let skills: Awaited<ReturnType<typeof makeSkillsDirectory>>

beforeAll(async () => {
  ;({ app } = await checklistApp())
  skills = await makeSkillsDirectory()
  ;({ app: skilled } = await checklistApp({ skills: { directory: skills.directory } }))
})

afterAll(async () => {
  await skills.remove()
})

const read = (target: Express, uri: unknown) => rpc(target, call('resources/read', { uri }))
const notFound = (uri: string) => ({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32602, message: 'Resource not found', data: { uri } },
})

describe('checklist 7.3 reading', () => {
  it('7.3.14 reads the OpenAPI document as one JSON text item', async () => {
    const response = await read(app, 'fw://openapi')
    expect(response.status).toBe(200)
    const { contents } = response.body.result
    expect(contents).toHaveLength(1)
    expect(contents[0]).toMatchObject({ uri: 'fw://openapi', mimeType: 'application/json' })
    expect(typeof JSON.parse(contents[0].text).openapi).toBe('string')
  })

  it('7.3.15 reads a JSON handler as text', async () => {
    expect((await read(app, 'fw://config')).body.result).toEqual({
      contents: [{ uri: 'fw://config', mimeType: 'application/json', text: '{"debug":true}' }],
    })
  })

  it('7.3.16 reads binary bytes as an exact base64 blob with no text key', async () => {
    const [item] = (await read(app, 'fw://report')).body.result.contents
    expect(item).toEqual({
      uri: 'fw://report',
      mimeType: 'application/pdf',
      blob: REPORT_BYTES.toString('base64'),
    })
    expect(Buffer.from(item.blob, 'base64').equals(REPORT_BYTES)).toBe(true)
  })

  it('7.3.17 passes template variables as path parameters and keeps the request URI', async () => {
    const [item] = (await read(app, 'app://w/42/f/99')).body.result.contents
    expect(item.uri).toBe('app://w/42/f/99')
    expect(JSON.parse(item.text)).toMatchObject({ wid: '42', fid: '99' })
    expect(item.text).toContain('42')
  })

  it('7.3.18 the first registered template wins an ambiguous URI', async () => {
    const [item] = (await read(app, 'app://w/1/f/2')).body.result.contents
    expect(JSON.parse(item.text)).toMatchObject({ wid: '1', fid: '2' })
    expect(item.text).not.toContain('other')
  })

  it('7.3.19 percent-decodes a captured value once; contents keep the encoded URI', async () => {
    const [item] = (await read(app, 'app://w/a%20b/f/1')).body.result.contents
    expect(item.uri).toBe('app://w/a%20b/f/1')
    expect(JSON.parse(item.text)).toMatchObject({ wid: 'a b', fid: '1' })
    const [double] = (await read(app, 'app://w/a%2520b/f/1')).body.result.contents
    expect(JSON.parse(double.text)).toMatchObject({ wid: 'a%20b' })
  })

  it('7.3.20 an encoded slash stays inside one segment and reaches the handler decoded', async () => {
    const [item] = (await read(app, 'app://w/a%2Fb/f/1')).body.result.contents
    expect(JSON.parse(item.text)).toMatchObject({ wid: 'a/b', fid: '1' })
  })

  it('delivers a dot-segment value to the handler as the literal value', async () => {
    const [item] = (await read(app, 'app://w/../f/%2E')).body.result.contents
    expect(JSON.parse(item.text)).toMatchObject({ wid: '..', fid: '.' })
  })

  it.each(['app://w//f/1', 'app://w/1/2/f/3', 'app://w/1/f/2/', 'apx://w/1/f/2', 'app://w/%zz/f/1'])(
    '7.3.21 %s is not found with data exactly { uri }, HTTP 200',
    async (uri) => {
      const response = await read(app, uri)
      expect(response.status).toBe(200)
      expect(response.body).toEqual(notFound(uri))
    },
  )

  it('7.3.22 an unknown URI is not found, never an empty contents array', async () => {
    const response = await read(app, 'fw://nope')
    expect(response.body).toEqual(notFound('fw://nope'))
    expect(response.body.result).toBeUndefined()
  })

  it('7.3.23 a 503 handler is -32603 Resource read failed with statusCode and content', async () => {
    expect((await read(app, 'fw://flaky')).body.error).toEqual({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 503, content: { error: 'upstream timeout' } },
    })
  })

  it.each([400, 401, 403, 404, 409, 422, 429, 500, 503])(
    '7.3.23 handler status %i maps to -32603 with the status only in data.statusCode',
    async (status) => {
      const { app: statuses } = await checklistApp({
        extend: (target) => {
          target.get(`/status-${status}`, (_req, res) => {
            res.status(status).json({ status })
          })
        },
        routes: [{ method: 'GET', path: `/status-${status}`, options: { mcpResource: `status-${status}` } }],
      })
      const response = await read(statuses, `fw://status-${status}`)
      expect(response.status).toBe(200)
      expect(response.body.error).toEqual({
        code: -32603,
        message: 'Resource read failed',
        data: { statusCode: status, content: { status } },
      })
    },
  )

  it('7.3.24 a throwing handler is -32603 with statusCode 500 and the rendered problem, no stack', async () => {
    const response = await read(app, 'fw://boom')
    expect(response.body.error).toEqual({
      code: -32603,
      message: 'Resource read failed',
      data: {
        statusCode: 500,
        content: { type: 'about:blank', title: 'Internal Server Error', status: 500 },
      },
    })
    expect(response.text).not.toContain('kaboom')
    expect(response.text).not.toContain('secret.ts')
  })

  it.each([{}, { uri: '' }, { uri: 123 }])('7.3.25 params %j are -32602', async (params) => {
    const response = await rpc(app, call('resources/read', params))
    expect(response.status).toBe(200)
    expect(response.body.error.code).toBe(-32602)
    expect(response.body.error.data).toBeUndefined()
  })

  it('7.3.26 skills: SKILL.md keeps its front matter, nested files are text, binary files are blobs', async () => {
    const [skill] = (await read(skilled, 'skill://git-workflow/SKILL.md')).body.result.contents
    expect(skill).toEqual({ uri: 'skill://git-workflow/SKILL.md', mimeType: 'text/markdown', text: SKILL_MD })
    const [guide] = (await read(skilled, 'skill://git-workflow/references/GUIDE.md')).body.result.contents
    expect(guide).toMatchObject({ mimeType: 'text/markdown', text: '# Guide\nRebase, then merge.\n' })
    const [image] = (await read(skilled, 'skill://git-workflow/assets/diagram.png')).body.result.contents
    expect(image).toMatchObject({ mimeType: 'image/png', blob: expect.any(String) })
    expect(image.text).toBeUndefined()
  })

  it.each([
    'skill://git-workflow/../other/SKILL.md',
    'skill://git-workflow/missing.md',
    'skill://nope/SKILL.md',
  ])('7.3.26 skills: %s is not found with data { uri }', async (uri) => {
    expect((await read(skilled, uri)).body).toEqual(notFound(uri))
  })

  it('7.3.26 skills: a handler template under skill:// is a startup error while skills are enabled', async () => {
    await expect(
      checklistApp({
        skills: { directory: skills.directory },
        routes: [
          {
            method: 'GET',
            path: '/workflows/:wid/files/:fid',
            options: { mcpResource: 'shadow', mcpResourceTemplate: 'skill://{wid}/{fid}' },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'mcp.skill_scheme_reserved' })
  })

  it('7.3.27 skills off: any skill:// URI is not found', async () => {
    expect((await read(app, 'skill://git-workflow/SKILL.md')).body).toEqual(
      notFound('skill://git-workflow/SKILL.md'),
    )
  })

  it('7.3.28 a resource hidden from the caller reads exactly like an unknown URI', async () => {
    const { app: filtered } = await checklistApp({
      visible: (resource, req) => resource.name !== 'config' || req.get('x-role') === 'admin',
    })
    const hidden = await read(filtered, 'fw://config')
    expect(hidden.body).toEqual(notFound('fw://config'))
    const listed = await rpc(filtered, call('resources/list'))
    expect(listed.body.result.resources.map((entry: { name: string }) => entry.name)).not.toContain('config')
    const admin = await rpc(filtered, call('resources/read', { uri: 'fw://config' }), { 'x-role': 'admin' })
    expect(admin.body.result.contents[0].text).toBe('{"debug":true}')
  })
})
