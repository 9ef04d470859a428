import { PortcullisError } from '@portcullis/core/errors'
import { describe, expect, it } from 'vitest'
import { problemAnswer } from '../exchange/exchange.js'
import {
  DEFAULT_RATE_LIMIT_RETRY_SECONDS,
  DEFAULT_UNAVAILABLE_RETRY_SECONDS,
  HttpProblem,
  problems,
  renderProblem,
  retryAfterFor,
} from './problem.js'
import { problemFor } from './problem-for.js'

/** RFC 9110 section 10.2.3: `Retry-After` is an HTTP-date or delta-seconds (`1*DIGIT`). */
const DELTA_SECONDS = /^\d+$/

describe('Retry-After on every 503 and 429', () => {
  it('a 503 whose cause knows no delay still carries the default', () => {
    const rendered = renderProblem(problems.authenticationUnavailable)
    expect(rendered.status).toBe(503)
    expect(rendered.headers['Retry-After']).toBe(String(DEFAULT_UNAVAILABLE_RETRY_SECONDS))
    expect(renderProblem(problems.stepUpUnavailable).headers['Retry-After']).toMatch(DELTA_SECONDS)
  })

  it.each([
    [Number.NaN, '5'],
    [Number.POSITIVE_INFINITY, '5'],
    [-3, '5'],
    [0, '0'],
    [0.2, '1'],
    [7, '7'],
  ])('a 503 with retryAfterSeconds %s answers Retry-After %s', (seconds, expected) => {
    const rendered = renderProblem({ status: 503, code: 'x.down', retryAfterSeconds: seconds })
    expect(rendered.headers['Retry-After']).toBe(expected)
    expect(rendered.headers['Retry-After']).toMatch(DELTA_SECONDS)
  })

  it('a 429 without a delay gets the rate-limit default', () => {
    expect(renderProblem({ status: 429, code: 'x.limited' }).headers['Retry-After']).toBe(
      String(DEFAULT_RATE_LIMIT_RETRY_SECONDS),
    )
  })

  it('other statuses carry none unless given one', () => {
    expect(renderProblem(problems.authenticationRequired).headers['Retry-After']).toBeUndefined()
    expect(renderProblem(problems.internalError).headers['Retry-After']).toBeUndefined()
    expect(retryAfterFor(500)).toBeUndefined()
    expect(retryAfterFor(500, 3)).toBe('3')
  })

  it("keeps an HttpProblem's own Retry-After header (an HTTP-date) and never sends two", () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT'
    const own = renderProblem({ status: 503, code: 'x.maintenance', headers: { 'retry-after': date } })
    expect(Object.keys(own.headers).filter((name) => name.toLowerCase() === 'retry-after')).toEqual([
      'retry-after',
    ])
    expect(own.headers['retry-after']).toBe(date)
    // a usable retryAfterSeconds wins over the header, once
    const both = renderProblem({
      status: 503,
      code: 'x.maintenance',
      retryAfterSeconds: 9,
      headers: { 'retry-after': date },
    })
    expect(Object.entries(both.headers).filter(([name]) => name.toLowerCase() === 'retry-after')).toEqual([
      ['Retry-After', '9'],
    ])
  })

  it('a typed unavailable error without a delay renders with the default, one with a delay with its own', () => {
    const unavailable = new PortcullisError('store.unavailable', 'unavailable', 'store down')
    const unavailableWithDelay = Object.assign(new PortcullisError('db.down', 'unavailable', 'down'), {
      retryAfterSeconds: 2,
    })
    const thrown = new HttpProblem({ status: 503, code: 'upstream.down' })
    expect(renderProblem(problemFor(thrown)).headers['Retry-After']).toBe('5')
    const withDelay = new HttpProblem({ status: 503, code: 'upstream.down', retryAfterSeconds: 2 })
    expect(renderProblem(problemFor(withDelay)).headers['Retry-After']).toBe('2')
    const rendered = renderProblem(problemFor(unavailable))
    expect([rendered.status, rendered.headers['Retry-After']]).toEqual([503, '5'])
    expect(renderProblem(problemFor(unavailableWithDelay)).headers['Retry-After']).toBe('2')
  })

  it("a handler's own problem answer carries the same headers as a rendered problem", () => {
    const answer = problemAnswer(problems.authenticationUnavailable)
    expect(answer.headers).toEqual(renderProblem(problems.authenticationUnavailable).headers)
    expect(answer.headers?.['Retry-After']).toBe('5')
    expect(
      problemAnswer({ status: 403, code: 'local.csrf_refused' }).headers?.['Retry-After'],
    ).toBeUndefined()
  })
})
