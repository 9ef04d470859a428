import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checklistApp, makeSkillsDirectory, REPORT_BYTES } from './fixture.js'

// The official TypeScript SDK client (v1) over Streamable HTTP against a real server on 127.0.0.1;
// also interoperability checklist case 7.1.7.
let server: Server
let url: URL
let skills: Awaited<ReturnType<typeof makeSkillsDirectory>>

beforeAll(async () => {
  skills = await makeSkillsDirectory()
  const { app } = await checklistApp({ skills: { directory: skills.directory } })
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await skills.remove()
})

type Contents = Awaited<ReturnType<Client['readResource']>>['contents']
const textOf = (contents: Contents) => {
  const [item] = contents
  return item !== undefined && 'text' in item ? item.text : undefined
}
const blobOf = (contents: Contents) => {
  const [item] = contents
  return item !== undefined && 'blob' in item ? item.blob : undefined
}

async function connected() {
  const errors: unknown[] = []
  const client = new Client({ name: 'portcullis-test', version: '1.0.0' })
  client.onerror = (error) => errors.push(error)
  const transport = new StreamableHTTPClientTransport(url)
  transport.onerror = (error) => errors.push(error)
  await client.connect(transport)
  return { client, errors }
}

describe('official MCP SDK client', () => {
  it('7.1.7 connects, lists and closes without error callbacks', async () => {
    const { client, errors } = await connected()
    expect(client.getServerVersion()).toEqual({ name: 'checklist', version: '1.0.0' })
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, completions: {} })
    const { resources } = await client.listResources()
    expect(resources[0]?.uri).toBe('fw://openapi')
    await client.close()
    expect(errors).toEqual([])
  })

  it('lists, reads text, blob, template and skill resources, completes and pings without errors', async () => {
    const { client, errors } = await connected()
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toContain('skill://git-workflow/SKILL.md')
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'app://w/{wid}/f/{fid}',
      'app://w/{x}/f/{y}',
    ])

    const text = await client.readResource({ uri: 'fw://config' })
    expect(text.contents).toEqual([
      { uri: 'fw://config', mimeType: 'application/json', text: '{"debug":true}' },
    ])

    const blob = await client.readResource({ uri: 'fw://report' })
    expect(blob.contents[0]?.mimeType).toBe('application/pdf')
    expect(Buffer.from(String(blobOf(blob.contents)), 'base64').equals(REPORT_BYTES)).toBe(true)

    const template = await client.readResource({ uri: 'app://w/42/f/a%20b' })
    expect(JSON.parse(String(textOf(template.contents)))).toMatchObject({ wid: '42', fid: 'a b' })

    const skill = await client.readResource({ uri: 'skill://git-workflow/references/GUIDE.md' })
    expect(skill.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: '# Guide\nRebase, then merge.\n',
    })

    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'app://w/{wid}/f/{fid}' },
      argument: { name: 'wid', value: '4' },
    })
    expect(completion.completion).toEqual({ values: [], total: 0, hasMore: false })
    expect(await client.ping()).toEqual({})
    await client.close()
    expect(errors).toEqual([])
  })

  it('surfaces a missing resource as McpError -32602 with data { uri }, and a failing handler as -32603', async () => {
    const { client, errors } = await connected()
    const missing = await client.readResource({ uri: 'fw://nope' }).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(McpError)
    expect(missing).toMatchObject({ code: -32602, data: { uri: 'fw://nope' } })
    const failed = await client.readResource({ uri: 'fw://flaky' }).catch((error: unknown) => error)
    expect(failed).toMatchObject({
      code: -32603,
      data: { statusCode: 503, content: { error: 'upstream timeout' } },
    })
    await client.close()
    expect(errors).toEqual([])
  })

  it('serves many concurrent clients with correct answers', async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => connected()))
    const reads = await Promise.all(
      sessions.map(({ client }, index) => client.readResource({ uri: `app://w/${index}/f/${index * 10}` })),
    )
    reads.forEach((result, index) => {
      expect(JSON.parse(String(textOf(result.contents)))).toMatchObject({
        wid: `${index}`,
        fid: `${index * 10}`,
      })
    })
    await Promise.all(sessions.map(({ client }) => client.close()))
    expect(sessions.flatMap(({ errors }) => errors)).toEqual([])
  })
})
