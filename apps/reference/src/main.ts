import { relyingPartyOf } from './accounts/second-factors.js'
import { readConfig } from './config.js'
import { DEMO_USERS } from './directory/demo-directory.js'
import { startReferenceApp } from './server.js'

/** `pnpm start`: one line per fact on stdout, one line on stderr when the app cannot start. */
async function main(): Promise<void> {
  const config = readConfig()
  const running = await startReferenceApp(config)
  const migrations =
    running.appliedMigrations.length === 0
      ? `schema current at version ${running.schemaVersion}`
      : `applied migrations ${running.appliedMigrations.join(', ')}; schema at version ${running.schemaVersion}`
  const secrets =
    running.secrets.kind === 'environment'
      ? `from ${running.secrets.variable}`
      : `${running.secrets.created ? 'generated into' : 'loaded from'} ${running.secrets.path} (0600)`
  const site = running.publicUrl
  console.log(`portcullis reference app listening on ${running.url}`)
  console.log(`data: ${running.storage} (${migrations})`)
  for (const notice of running.storageNotices) console.log(`note: ${notice}`)
  console.log(`secrets: ${secrets}`)
  console.log(
    running.idpUrl === undefined
      ? 'demo identity provider: off (PORTCULLIS_DEMO_IDP=false)'
      : `demo identity provider: ${running.idpUrl} (login page chooses user, auth_time, ACR and AMR)`,
  )
  console.log(running.mail)
  console.log(
    `real identity providers: ${running.providers.length === 0 ? 'none enabled' : running.providers.join(', ')}`,
  )
  const documents = config.authorizationServer?.clientIdMetadataDocuments
  if (documents !== undefined) {
    const parts = [
      ...(documents.allowInsecureLoopback === true ? ['fetched from loopback too'] : []),
      ...(documents.ca === undefined ? [] : ['an extra CA trusted (PORTCULLIS_DEV_CIMD_CA)']),
    ]
    console.log(`client metadata documents (development): ${parts.join(', ')}`)
  }
  const relyingParty = relyingPartyOf(running.publicUrl)
  console.log(
    relyingParty === undefined
      ? `passkeys: off on ${running.publicUrl} (WebAuthn needs a host name: PORTCULLIS_PUBLIC_URL=http://localhost:${new URL(running.url).port})`
      : `passkeys: RP ID ${relyingParty.rpId}`,
  )
  console.log('open:')
  for (const [path, what] of [
    ['/', 'home'],
    ['/sign-in', 'sign in (password, passkey or the demo IdP)'],
    ['/sign-up', 'create a local account'],
    ['/account', 'sign-in methods, passkeys, two-step sign-in, sessions'],
    ['/keys', 'API keys: issue, rotate, revoke'],
    ['/connected-apps', 'MCP clients and apps you connected with OAuth: disconnect them'],
    ['/tenants', 'tenant pages and the tenant switcher'],
    ['/events', 'your security events'],
    ['/agents', 'MCP resources and client configuration'],
    ['/openapi.json', 'OpenAPI document'],
  ]) {
    console.log(`  ${site}${path}  ${what}`)
  }
  console.log(`MCP URL to give a client: ${site}/mcp (it signs in with OAuth as one of your users)`)
  console.log(`demo users: ${DEMO_USERS.map((user) => `${user.username} (${user.summary})`).join('; ')}`)
  const created = running.demoUsers.filter((user) => user.password !== undefined)
  if (created.length > 0) {
    console.log('demo user passwords (shown once, derived from the secrets file):')
    for (const user of created) console.log(`  ${user.username}  ${user.password}`)
  } else {
    console.log('demo user passwords: printed when the accounts were created (first start)')
  }
  console.log(`open ${site}/ in a browser; health: ${site}/healthz; stop with Ctrl+C`)
  // Ctrl+C reaches the app twice (from the terminal's process group and relayed by tsx): a second signal
  // must not end the process before the database server has been stopped.
  let stopping = false
  const shutdown = () => {
    if (stopping) return
    stopping = true
    void running.close().then(() => process.exit(0))
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  console.error(`portcullis reference app could not start: ${message}`)
  process.exit(1)
})
