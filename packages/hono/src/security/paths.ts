import { ConfigurationError } from '@portcullis/core/errors'

const REGEX_PARAMETER = /:([A-Za-z_$][A-Za-z0-9_$]*)\{[^}]*\}/g
const OPTIONAL_LAST = /\/:([A-Za-z_$][A-Za-z0-9_$]*)\?$/

/**
 * A Hono route path in the route-path syntax of `@portcullis/http` (documentation, guard parameters,
 * MCP resource routes): `:id` as is, a regular-expression parameter `:id{[0-9]+}` as `:id`, an optional
 * last parameter `/:id?` as the optional group `{/:id}`, a trailing wildcard `*` as the named wildcard
 * `*wildcard`. Anything else Portcullis cannot document is a startup error.
 */
export function routePattern(path: string): string {
  let pattern = path.replace(REGEX_PARAMETER, ':$1').replace(OPTIONAL_LAST, '{/:$1}')
  if (pattern.endsWith('/*')) pattern = `${pattern.slice(0, -1)}*wildcard`
  if (pattern === '') return '/'
  if (!pattern.startsWith('/') || pattern.slice(0, -1).includes('*')) {
    throw new ConfigurationError('route.invalid_path', `route path "${path}" cannot carry Portcullis options`)
  }
  return pattern
}
