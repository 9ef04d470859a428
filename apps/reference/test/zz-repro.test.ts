import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, beforeAll, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

let app: TestApp
let proxy: FaultProxy
beforeAll(async () => {
  app = await startTestApp({}, async (connectionString) => {
    const target = new URL(connectionString)
    proxy = await startFaultProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) })
    return proxy.through(connectionString)
  })
}, 120_000)
afterAll(async () => { await app?.close(); await proxy?.close() })
it('repro', async () => {
  const signIn = await fetch(`${app.url}/sign-in`, { method: 'POST', redirect: 'manual', headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' }, body: `username=carol&password=${encodeURIComponent(app.password('carol'))}` })
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  await proxy.down()
  await new Promise((r) => setTimeout(r, 6000))
  const probes: [string, RequestInit][] = [
    ['/', { headers: { cookie, accept: 'text/html' } }],
    ['/account', { headers: { cookie, accept: 'text/html' } }],
    ['/tenants', { headers: { cookie, accept: 'text/html' } }],
    ['/api/whoami', { headers: { cookie } }],
    ['/sign-in', { method: 'POST', redirect: 'manual', headers: { origin: app.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, body: `username=carol&password=${encodeURIComponent(app.password('carol'))}` }],
    ['/auth/login', { method: 'POST', headers: { origin: app.url, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'carol', password: app.password('carol') }) }],
  ]
  for (let i = 0; i < 2; i++) for (const [path, init] of probes) {
    const r = await fetch(`${app.url}${path}`, init)
    const t = await r.text()
    console.log(path, r.status, r.headers.get('retry-after'), r.headers.get('content-type'), t.slice(0, 120).replace(/\s+/g, ' '))
  }
  await proxy.up()
}, 60_000)
