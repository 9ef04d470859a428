import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextBuild, nextStart, type RunningApp } from './support/next-app.js'

let app: RunningApp | undefined

beforeAll(async () => {
  await nextBuild({}, 240_000)
  app = await nextStart({}, 60_000)
}, 330_000)

afterAll(async () => {
  await app?.stop()
})

function started(): RunningApp {
  if (app === undefined) throw new Error('the app did not start')
  return app
}

describe('the Next.js example, built and started', () => {
  it('serves the page', async () => {
    const response = await fetch(`${started().url}/`)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('Portcullis on Next.js')
  })

  it('serves a route handler that imports a Portcullis package', async () => {
    const response = await fetch(`${started().url}/api/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true, policy: 'required' })
  })

  it('answers 404 for a path it does not serve', async () => {
    const response = await fetch(`${started().url}/api/nothing-here`)
    expect(response.status).toBe(404)
  })
})
