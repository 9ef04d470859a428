// The foundation's benchmark: the health route mounted by @portcullis/express vs a hand-written Express
// route answering the same JSON, both served on loopback in this process.

import { compareHttp, finish, listen } from '@portcullis/bench'
import { mountHealthRoute } from '@portcullis/express'
import express from 'express'

const plain = express()
plain.get('/healthz', (_request, response) => {
  response.set('Cache-Control', 'no-store').json({ status: 'ok', checks: { memory: 'ok' } })
})
const adapter = express()
mountHealthRoute(adapter, { checks: { memory: () => true } })

const [baseline, candidate] = await Promise.all([listen(plain), listen(adapter)])
try {
  await compareHttp({
    title: 'health route',
    baseline: { name: 'plain express', url: `${baseline.url}/healthz` },
    candidate: { name: '@portcullis/express mountHealthRoute', url: `${candidate.url}/healthz` },
    budget: 0.8,
  })
} finally {
  await Promise.all([baseline.close(), candidate.close()])
}
finish()
