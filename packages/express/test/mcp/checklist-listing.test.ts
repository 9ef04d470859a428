import type { Express } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, checklistApp, makeSkillsDirectory, rpc } from './fixture.js'

// Interoperability checklist section 7.2 (listing).
let app: Express
let skills: Awaited<ReturnType<typeof makeSkillsDirectory>>

beforeAll(async () => {
  ;({ app } = await checklistApp())
  skills = await makeSkillsDirectory()
})

afterAll(async () => {
  await skills.remove()
})

describe('checklist 7.2 listing', () => {
  it('7.2.8 lists openapi first, then marked resources with their mime types, no templates, no cursor', async () => {
    const response = await rpc(app, call('resources/list'))
    expect(response.status).toBe(200)
    const { resources, nextCursor } = response.body.result
    expect(resources[0]).toEqual({
      uri: 'fw://openapi',
      name: 'openapi',
      mimeType: 'application/json',
      description: expect.any(String),
    })
    for (const entry of resources) {
      expect(typeof entry.uri).toBe('string')
      expect(typeof entry.name).toBe('string')
    }
    expect(resources).toContainEqual({ uri: 'fw://config', name: 'config', mimeType: 'application/json' })
    expect(resources).toContainEqual({ uri: 'fw://report', name: 'report', mimeType: 'application/pdf' })
    const names = resources.map((entry: { name: string }) => entry.name)
    expect(names).not.toContain('wf')
    expect(names).not.toContain('other')
    expect(nextCursor).toBeUndefined()
  })

  it('7.2.9 params {} gives the identical result', async () => {
    const bare = await rpc(app, call('resources/list'))
    const empty = await rpc(app, call('resources/list', {}))
    expect(empty.body).toEqual(bare.body)
  })

  it('7.2.10 pages with nextCursor until the last page', async () => {
    const { app: paged } = await checklistApp({ pageSize: 2 })
    const uris: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const response = await rpc(paged, call('resources/list', cursor === undefined ? {} : { cursor }))
      expect(response.status).toBe(200)
      uris.push(...response.body.result.resources.map((entry: { uri: string }) => entry.uri))
      cursor = response.body.result.nextCursor
      if (cursor !== undefined) expect(typeof cursor).toBe('string')
      pages += 1
    } while (cursor !== undefined && pages < 10)
    expect(pages).toBe(3)
    expect(uris).toEqual(['fw://openapi', 'fw://config', 'fw://report', 'fw://flaky', 'fw://boom'])
  })

  it.each(['!!!', 42])('7.2.11 cursor %j is -32602 with HTTP 200', async (cursor) => {
    const response = await rpc(app, call('resources/list', { cursor }))
    expect(response.status).toBe(200)
    expect(response.body.error.code).toBe(-32602)
  })

  it('7.2.12 lists templates in registration order with uriTemplate and name', async () => {
    const response = await rpc(app, call('resources/templates/list'))
    expect(response.status).toBe(200)
    expect(response.body.result.resourceTemplates).toEqual([
      { uriTemplate: 'app://w/{wid}/f/{fid}', name: 'wf', mimeType: 'application/json' },
      { uriTemplate: 'app://w/{x}/f/{y}', name: 'other' },
    ])
  })

  it('7.2.13 with skills on, lists SKILL.md with the front matter, and every other skill file', async () => {
    const { app: skilled } = await checklistApp({ skills: { directory: skills.directory } })
    const response = await rpc(skilled, call('resources/list'))
    const resources = response.body.result.resources
    expect(resources[0].uri).toBe('fw://openapi')
    expect(resources[1]).toEqual({
      uri: 'skill://git-workflow/SKILL.md',
      name: 'git-workflow',
      description: 'How this team branches, reviews and merges',
      mimeType: 'text/markdown',
      size: expect.any(Number),
    })
    expect(resources.map((entry: { uri: string }) => entry.uri)).toEqual([
      'fw://openapi',
      'skill://git-workflow/SKILL.md',
      'skill://git-workflow/assets/diagram.png',
      'skill://git-workflow/references/GUIDE.md',
      'fw://config',
      'fw://report',
      'fw://flaky',
      'fw://boom',
    ])
  })
})
