import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { migrate } from '@portcullis/postgres'
import type { SeededUser } from './accounts/local-accounts.js'
import { createReferenceApp } from './app.js'
import { composeDemo } from './composition.js'
import type { ReferenceConfig } from './config.js'
import { type DemoIdp, startDemoIdp } from './demo-idp/demo-idp.js'
import { startAppMail } from './mail/app-mail.js'
import { DEFAULT_MAIL_FROM } from './mail/mail-settings.js'
import { MAILBOX_PATH } from './mail/mailbox-page.js'
import type { ProviderKind } from './providers/provider-settings.js'
import { buildKeyMaterial } from './secrets/key-material.js'
import { loadSecrets, type SecretsOrigin } from './secrets/secret-source.js'
import { PortInUseError } from './server-errors.js'
import { openStorage } from './storage/storage.js'

export { PortInUseError } from './server-errors.js'

/** A running reference app: where it listens, what its storage is, and how to stop it. */
export interface RunningReferenceApp {
  readonly url: string
  /** Human-readable description of the storage in use (never a connection string with credentials). */
  readonly storage: string
  /** What the operator should know about the data folder, one line each (a recovered crash, old data). */
  readonly storageNotices: readonly string[]
  /** Versions the start applied, oldest first (empty when the schema was already current). */
  readonly appliedMigrations: readonly number[]
  readonly schemaVersion: number
  /** The origin browsers use: `PORTCULLIS_PUBLIC_URL`, or `url`. */
  readonly publicUrl: string
  /** The demo OpenID Provider's issuer, when it runs. */
  readonly idpUrl?: string
  /** The demo IdP's outage switch, for fault tests (`pause` / `resume`). */
  readonly demoIdp?: Pick<DemoIdp, 'pause' | 'resume'>
  /** Where the key material came from (a file created or reused, or a secret store's variable). */
  readonly secrets: SecretsOrigin
  /** Real identity providers enabled by the environment. */
  readonly providers: readonly ProviderKind[]
  /** Where mail goes, in one line for the console (never the credentials of `SMTP_URL`). */
  readonly mail: string
  /** The demo users; `password` only for accounts this start created (the console prints it once). */
  readonly demoUsers: readonly SeededUser[]
  close(): Promise<void>
}

const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\]|::1)$/
const WILDCARD = /^(0\.0\.0\.0|::|\[::\])$/

async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(host, port) : error)
    })
    server.listen(port, host)
  })
  return (server.address() as AddressInfo).port
}

/** The origins the app is reached at: the public one, and both loopback spellings when it is loopback. */
function originsOf(publicOrigin: string): readonly string[] {
  const url = new URL(publicOrigin)
  if (!LOOPBACK.test(url.hostname)) return [publicOrigin]
  const port = url.port === '' ? '' : `:${url.port}`
  return [
    ...new Set([publicOrigin, `${url.protocol}//127.0.0.1${port}`, `${url.protocol}//localhost${port}`]),
  ]
}

/**
 * Starts storage (embedded PostgreSQL under `dataDir`, or the server at `databaseUrl`), applies pending
 * migrations, loads or creates the key material, listens, starts the demo OpenID Provider and serves the
 * app. Everything started is stopped again when a later step fails.
 */
export async function startReferenceApp(config: ReferenceConfig): Promise<RunningReferenceApp> {
  const storage = await openStorage(config)
  const stops: (() => Promise<void>)[] = [() => storage.close()]
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined)
  }
  try {
    const report = await migrate(storage.postgres)
    const loaded = await loadSecrets(config.secretsFile ?? join(dirname(config.dataDir), 'secrets.json'))
    const keys = await buildKeyMaterial(loaded.secrets)
    let handle = (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(503, { 'Retry-After': '1' }).end('starting\n')
    }
    const server = createServer((request, response) => handle(request, response))
    const port = await listen(server, config.host, config.port)
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    )
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
    const selfUrl = LOOPBACK.test(config.host) ? url : `http://127.0.0.1:${port}`
    // Listening on every interface (a container): browsers reach it as localhost unless told otherwise.
    const publicUrl = config.publicUrl ?? (WILDCARD.test(config.host) ? selfUrl : url)
    const origins = originsOf(publicUrl)
    let idp: DemoIdp | undefined
    if (config.demoIdp?.enabled !== false) {
      idp = await startDemoIdp({
        host: '127.0.0.1',
        port: config.demoIdp?.port ?? 0,
        secrets: keys.demoIdp,
        appOrigins: origins,
      })
      const started = idp
      stops.push(() => started.close())
    }
    const mail = await startAppMail(
      config.mail ?? { developmentMailbox: false, from: DEFAULT_MAIL_FROM },
      `${publicUrl}${MAILBOX_PATH}`,
    )
    stops.push(() => mail.close())
    const demo = await composeDemo({
      mail,
      postgres: storage.postgres,
      listener: storage.listener,
      keys,
      selfUrl,
      publicOrigin: publicUrl,
      trustedOrigins: origins.filter((origin) => origin !== publicUrl),
      trustedProxies: config.trustedProxies ?? [],
      providers: config.providers ?? [],
      ...(idp === undefined ? {} : { idp: { issuer: idp.issuer } }),
      ...(config.authorizationServer === undefined
        ? {}
        : { authorizationServer: config.authorizationServer }),
      ...(config.dnsServers === undefined ? {} : { dnsServers: config.dnsServers }),
    })
    stops.push(() => demo.close())
    const demoUsers = await demo.seedDemoUsers()
    const app = createReferenceApp({ postgres: storage.postgres, demo })
    await demo.attach(app)
    handle = app
    let closed: Promise<void> | undefined
    return {
      url,
      storage: storage.description,
      storageNotices: storage.notices,
      appliedMigrations: report.applied,
      schemaVersion: report.current,
      publicUrl,
      secrets: loaded.origin,
      providers: (config.providers ?? []).map((provider) => provider.kind),
      demoUsers,
      mail: mail.description,
      ...(idp === undefined ? {} : { idpUrl: idp.issuer, demoIdp: idp }),
      close() {
        closed ??= stopAll()
        return closed
      },
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}
