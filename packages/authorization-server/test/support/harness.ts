import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import express from 'express'
import Fastify from 'fastify'
import {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  createAuthorizationServer,
  fastifyMount,
  generateSigningKey,
  type SigningJwk,
} from '../../src/index.js'
import { DocumentServer, TEST_CA } from './document-server.js'
import { TestInteraction } from './test-interaction.js'

export const RESOURCE = 'https://mcp.example/mcp'
export const OTHER_RESOURCE = 'https://files.example/mcp'
export const ACCOUNT_ID = 'account-1'

export type Mount = 'node' | 'express' | 'fastify'

export interface Harness {
  readonly issuer: string
  readonly origin: string
  readonly server: AuthorizationServer
  readonly store: MemoryOAuthServerStore
  readonly accounts: MemoryAccountStore
  readonly interaction: TestInteraction
  readonly documents: DocumentServer
  readonly keys: readonly SigningJwk[]
  /** Every grant id `store.revokeGrant` was called with. */
  readonly revoked: string[]
  close(): Promise<void>
}

export interface HarnessOptions {
  readonly mount?: Mount
  readonly keys?: readonly SigningJwk[]
  readonly overrides?: Partial<AuthorizationServerOptions>
  /** Milliseconds added to the store's clock (moves entries toward their expiry). */
  readonly storeClockOffset?: { value: number }
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void

async function listen(listener: Listener): Promise<{ http: Server; origin: string }> {
  const http = createServer(listener)
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { http, origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}` }
}

/** A real authorization server on loopback (mounted at /oauth), a memory store and a document server. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const mount = options.mount ?? 'node'
  const documents = await new DocumentServer().start()
  const accounts = new MemoryAccountStore()
  const created = await accounts.createAccount({
    accountId: ACCOUNT_ID,
    username: 'alice',
    passwordHash: 'not-a-real-hash',
    now: new Date(),
  })
  if (created.outcome !== 'created') throw new Error('account not created')
  const offset = options.storeClockOffset
  const store = new MemoryOAuthServerStore({
    accounts,
    ...(offset === undefined ? {} : { clock: () => Date.now() + offset.value }),
  })
  const revoked: string[] = []
  const revokeGrant = store.revokeGrant.bind(store)
  store.revokeGrant = async (grantId: string) => {
    revoked.push(grantId)
    await revokeGrant(grantId)
  }
  const interaction = new TestInteraction(ACCOUNT_ID)
  const keys = options.keys ?? [await generateSigningKey(), await generateSigningKey()]

  let current: AuthorizationServer | undefined
  const late = {
    handler: (req: IncomingMessage, res: ServerResponse) => current?.handler(req, res),
    metadata: (req: IncomingMessage, res: ServerResponse) => current?.metadataHandler(req, res),
  }
  let http: Server
  let origin: string
  let stopFramework = async () => {}
  if (mount === 'fastify') {
    const app = Fastify()
    await app.register(fastifyMount(late), { prefix: '/oauth' })
    app.get('/.well-known/oauth-authorization-server/oauth', (request, reply) => {
      reply.hijack()
      late.metadata(request.raw, reply.raw)
    })
    origin = await app.listen({ port: 0, host: '127.0.0.1' })
    http = app.server
    stopFramework = () => app.close()
  } else if (mount === 'express') {
    const app = express()
    app.get('/.well-known/oauth-authorization-server/oauth', late.metadata)
    app.use('/oauth', late.handler)
    ;({ http, origin } = await listen(app))
  } else {
    ;({ http, origin } = await listen((req, res) =>
      req.url?.startsWith('/.well-known/') ? late.metadata(req, res) : late.handler(req, res),
    ))
  }
  const issuer = `${origin}/oauth`
  const server = await createAuthorizationServer({
    issuer,
    store,
    accounts,
    interactions: interaction,
    resources: [
      {
        indicator: RESOURCE,
        scopes: { 'notes:read': 'Read notes', 'notes:write': 'Write notes' },
        accessTokenTtlSeconds: 120,
      },
      { indicator: OTHER_RESOURCE, scopes: { 'files:read': 'Read files' } },
    ],
    signingKeys: keys,
    clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA },
    ...options.overrides,
  })
  current = server
  return {
    issuer,
    origin,
    server,
    store,
    accounts,
    interaction,
    documents,
    keys,
    revoked,
    async close() {
      await server.close()
      await documents.stop()
      if (mount === 'fastify') await stopFramework()
      else {
        http.closeAllConnections()
        await new Promise<void>((resolve) => http.close(() => resolve()))
      }
    },
  }
}
