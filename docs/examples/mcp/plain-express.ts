// A plain Express app (no Portcullis router): wrapper-form marks, endpoint auth as ordinary middleware.
import { createMCPEndpoint, mcpResource } from '@portcullis/express/mcp'
import express, { type RequestHandler } from 'express'

declare const isValidToken: (token: string | undefined) => boolean

const requireToken: RequestHandler = (req, res, next) => {
  // A 401 from here gets a `WWW-Authenticate: Bearer ...` challenge added by the endpoint.
  if (isValidToken(req.get('authorization'))) next()
  else res.status(401).json({ title: 'Unauthorized' })
}

// #region marking-routes
const app = express()
const mcp = createMCPEndpoint({ path: '/agents/mcp', scheme: 'shop', auth: requireToken })
app.use(mcp)

app.get(
  '/catalog',
  mcpResource('catalog', { mimeType: 'application/json', description: 'Every product' })((_req, res) => {
    res.json([{ sku: 'A-1', name: 'Anvil' }])
  }),
)
// #endregion marking-routes

// Template variables must be exactly the route's path parameters, or attach() rejects.
app.get(
  '/products/:sku/manual',
  mcpResource('manual', { template: 'shop://products/{sku}/manual', mimeType: 'text/markdown' })(
    (req, res) => {
      res.type('text/markdown').send(`# Manual for ${req.params.sku}`)
    },
  ),
)

await mcp.attach(app)
app.listen(3000, '127.0.0.1')
