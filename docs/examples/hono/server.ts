// Serving the application of `app.ts` on Node with `@hono/node-server`.
import { serve } from '@hono/node-server'
import { app } from './app.js'

// #region serve
// The app is a fetch handler: @hono/node-server on Node, `export default app` on Bun, Deno or Workers.
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 3000 })
// #endregion serve
