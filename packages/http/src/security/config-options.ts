import type { OptionsShape } from '@portcullis/core/errors'
import { StepUpCookies } from '../cookies/cookies.js'
import { OPENAPI_INFO_OPTIONS, OPENAPI_SERVER_OPTIONS } from '../openapi/document.js'
import type { OpenApiConfig, SecurityOptions, StepUpConfig } from './config.js'

const STEP_UP_OPTIONS: OptionsShape<StepUpConfig> = {
  verifier: {
    required: true,
    kind: 'object',
    check: (verifier) =>
      typeof (verifier as { consume?: unknown }).consume === 'function'
        ? undefined
        : 'must have a consume method',
  },
  header: { kind: 'string', code: 'security.invalid_step_up_header' },
  cookies: {
    kind: ['false', 'object'],
    check: (value) =>
      value === false || value instanceof StepUpCookies ? undefined : 'must be a StepUpCookies or false',
  },
  events: { kind: 'function' },
  onEventSinkError: { kind: 'function' },
}

const OPENAPI_OPTIONS: OptionsShape<OpenApiConfig> = {
  path: { kind: 'string', code: 'security.invalid_openapi_path' },
  info: { required: true, kind: 'object', shape: OPENAPI_INFO_OPTIONS },
  servers: { kind: 'array', elements: { kind: 'object', shape: OPENAPI_SERVER_OPTIONS } },
}

/** Header overrides: names to values, `false` to drop one (a number would fail every response). */
function headerOverrides(value: unknown): string | undefined {
  const values = Object.values(value as Record<string, unknown>)
  return values.every((entry) => typeof entry === 'string' || entry === false)
    ? undefined
    : 'must map header names to strings or false'
}

/** The options of `createSecurity`; their values are checked further by `createSecurity` itself. */
export const SECURITY_CONFIG_OPTIONS: OptionsShape<SecurityOptions<unknown>> = {
  mechanisms: { required: true, kind: 'array', elements: { kind: 'object' } },
  authorizationResolver: { kind: 'function' },
  defaultPolicy: { kind: 'object', code: 'security.invalid_default_policy' },
  stepUp: { kind: 'object', shape: STEP_UP_OPTIONS },
  headers: {
    kind: ['false', 'object'],
    check: (value) => (value === false ? undefined : headerOverrides(value)),
  },
  noStoreAuthenticated: { kind: 'boolean' },
  openapi: { kind: ['false', 'object'], shape: OPENAPI_OPTIONS },
  onRejection: { kind: 'function' },
  instrumentation: {
    kind: 'object',
    check: (value) => {
      const candidate = value as Partial<
        Record<'decision' | 'refusal' | 'rateLimitHit' | 'recording', unknown>
      >
      if (
        typeof candidate.decision !== 'function' ||
        typeof candidate.refusal !== 'function' ||
        typeof candidate.rateLimitHit !== 'function'
      ) {
        return 'must have decision, refusal and rateLimitHit methods'
      }
      return candidate.recording === undefined || typeof candidate.recording === 'function'
        ? undefined
        : 'recording must be a method when given'
    },
  },
  onError: { kind: 'function' },
  routeOptions: {
    kind: 'array',
    elements: { kind: 'string', check: (value) => (value === '' ? 'must not be empty' : undefined) },
  },
}
