import { compareHttp, listen } from '@portcullis/bench'
import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'
import { anonymous, required } from '@portcullis/core/policy'
import express from 'express'
import { createSecurity } from '../src/index.js'
const trivial: AuthenticationMechanism = {
  name: 'trivial', default: false, securityScheme: { type: 'apiKey', in: 'header', name: 'x-trivial' },
  authenticate: async (source) => source.header('x-trivial') === undefined ? none()
      : authenticated({ id: 'svc-bench', kind: 'service' }, { mechanism: 'trivial', credentialType: 'trivial' }),
}
const security = createSecurity({ mechanisms: [trivial] })
const router = security.router()
const handler: express.RequestHandler = (_q, r) => { r.json({ items: [1, 2, 3] }) }
router.get('/open', { auth: anonymous() }, handler)
router.get('/open2', { auth: anonymous() }, handler)
router.get('/trivial', { auth: required('trivial') }, handler)
const ctx = { principal: { id: 'x', kind: 'service' } } as never
router.get('/sync', { auth: anonymous() }, (q, _r, n) => { q.security = ctx; n() }, handler)
router.get('/async', { auth: anonymous() }, async (q, _r, n) => { await Promise.resolve(); q.security = ctx; n() }, handler)
router.get('/nostore', { auth: anonymous() }, (q, r, n) => { q.security = ctx; r.setHeader('Cache-Control', 'no-store'); n() }, handler)
const app = express(); app.use(security.middleware); app.use(router)
const s = await listen(app)
await compareHttp({ title: 'sync', baseline: { name: 'open', url: `${s.url}/open` }, candidate: { name: 'sync', url: `${s.url}/sync`, headers: { 'x-trivial': '1' } } })
await compareHttp({ title: 'async', baseline: { name: 'open', url: `${s.url}/open` }, candidate: { name: 'async', url: `${s.url}/async`, headers: { 'x-trivial': '1' } } })
await compareHttp({ title: 'nostore', baseline: { name: 'open', url: `${s.url}/open` }, candidate: { name: 'nostore', url: `${s.url}/nostore`, headers: { 'x-trivial': '1' } } })
await compareHttp({ title: 'trivial', baseline: { name: 'open', url: `${s.url}/open` }, candidate: { name: 'trivial', url: `${s.url}/trivial`, headers: { 'x-trivial': '1' } } })
await s.close()
