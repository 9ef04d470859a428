import { type ProblemInit, renderProblem } from '@portcullis/http/problem'
import type { Response } from 'express'

/** Writes `init` as `application/problem+json`, with `Cache-Control: no-store` and `Retry-After` (always on 429 and 503). */
export function sendProblem(response: Response, init: ProblemInit): void {
  if (response.headersSent) {
    response.destroy()
    return
  }
  const rendered = renderProblem(init)
  for (const [name, value] of Object.entries(rendered.headers)) response.setHeader(name, value)
  response.status(rendered.status).send(rendered.body)
}
