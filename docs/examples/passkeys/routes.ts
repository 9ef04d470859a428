// Mounting the passkey routes: the same route table on Express and on Fastify.
import type { Security } from '@portcullis/express'
import * as onExpress from '@portcullis/express/passkeys'
import * as onFastify from '@portcullis/fastify/passkeys'
import type express from 'express'
import type { FastifyInstance } from 'fastify'

type Ceremonies = Omit<onFastify.PasskeyRoutesOptions, 'onError'>

export function mountOnExpress(app: express.Express, security: Security, options: Ceremonies): void {
  const { passkeyRoutes } = onExpress
  const { passkeys, passkeyStepUp, stepUp, local } = options
  // #region routes
  // Express (@portcullis/express/passkeys): after localAccountRoutes, whose CSRF check covers them
  app.use(passkeyRoutes({ passkeys, passkeyStepUp, stepUp, local, security }))
  // #endregion routes
}

export function mountOnFastify(app: FastifyInstance, options: Ceremonies): void {
  const { passkeyRoutes } = onFastify
  const { passkeys, passkeyStepUp, stepUp, local } = options
  // #region routes
  // Fastify (@portcullis/fastify/passkeys): after the portcullis plugin and localAccountRoutes
  passkeyRoutes(app, { passkeys, passkeyStepUp, stepUp, local })
  // #endregion routes
}
