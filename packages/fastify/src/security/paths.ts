import { ConfigurationError } from '@portcullis/core/errors'

const REGEX_PARAMETER = /:([A-Za-z_$][A-Za-z0-9_$]*)\([^/]*\)/g
const OPTIONAL_LAST = /\/:([A-Za-z_$][A-Za-z0-9_$]*)\?$/

/**
 * A Fastify route path in the route-path syntax of `@portcullis/http` (documentation, guard parameters,
 * MCP resource routes): `:id` as is, a regular-expression parameter `:id(^\d+$)` as `:id`, an optional
 * last parameter `/:id?` as the optional group `{/:id}`, a trailing wildcard `*` as the named wildcard
 * `*wildcard` (Fastify names it `*`). Anything else Portcullis cannot document is a startup error.
 */
export function routePattern(url: string): string {
  let pattern = url.replace(REGEX_PARAMETER, ':$1')
  pattern = pattern.replace(OPTIONAL_LAST, '{/:$1}')
  if (pattern.endsWith('*')) pattern = `${pattern.slice(0, -1)}*wildcard`
  if (pattern === '') return '/'
  if (!pattern.startsWith('/')) {
    throw new ConfigurationError('route.invalid_path', `route path "${url}" must start with "/"`)
  }
  return pattern
}
