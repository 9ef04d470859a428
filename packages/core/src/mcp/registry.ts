import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import { MCPResourceLink, type MCPResourceLinkInit } from './links.js'
import { parseUriTemplate, type UriTemplate } from './template.js'

/** What an adapter declares for one marked route. `target` is opaque to core (the adapter's route). */
export interface MCPResourceDefinition<T> {
  /** Programmatic name; a concrete resource is published as `<scheme>://<name>`. */
  readonly name: string
  readonly title?: string
  readonly description?: string
  /** Advertised in listings and used when the handler sets no content type. */
  readonly mimeType?: string
  /** RFC 6570 level-1 template; the resource is then listed in `resources/templates/list` only. */
  readonly template?: string
  /** 2026-07-28 caching hint: how long a read stays fresh, in milliseconds. Default 0. */
  readonly ttlMs?: number
  readonly target: T
}

interface EntryBase<T> {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly ttlMs?: number
  readonly target: T
}

/** A concrete (non-template) handler resource. */
export interface MCPConcreteResource<T> extends EntryBase<T> {
  readonly kind: 'resource'
  readonly uri: string
}

/** A templated handler resource. */
export interface MCPTemplateResource<T> extends EntryBase<T> {
  readonly kind: 'template'
  readonly uriTemplate: string
  readonly template: UriTemplate
}

export type MCPRegisteredResource<T> = MCPConcreteResource<T> | MCPTemplateResource<T>

/** A handler resource a URI resolved to, with the decoded template variables (empty for concrete). */
export interface MCPResolvedResource<T> {
  readonly resource: MCPRegisteredResource<T>
  readonly params: Readonly<Record<string, string>>
}

export interface MCPResourceRegistryOptions {
  /** Scheme of concrete resource URIs and of the built-in `<scheme>://openapi`. */
  readonly scheme: string
  /** When true, `skill://` belongs to the skills catalog and handler resources may not use it. */
  readonly skillsEnabled?: boolean
}

const REGISTRY_OPTIONS: OptionsShape<MCPResourceRegistryOptions> = {
  scheme: { required: true, kind: 'string', code: 'mcp.scheme_invalid' },
  skillsEnabled: { kind: 'boolean' },
}

const SCHEME = /^[a-z][a-z0-9+.-]*$/
const NAME = /^[A-Za-z0-9_][A-Za-z0-9._~-]*$/
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/
export const OPENAPI_RESOURCE_NAME = 'openapi'

/** The URI with its scheme in lower case (RFC 3986: schemes compare case-insensitively). */
const NO_TEMPLATES: readonly never[] = Object.freeze([])

/**
 * `scheme://authority/` of a URI or of a template's leading literal, or undefined when the text ends
 * before the authority does (a template whose authority is a variable, a URI without a path).
 */
function authorityPrefix(text: string): string | undefined {
  const start = text.indexOf('://')
  if (start < 0) return undefined
  const slash = text.indexOf('/', start + 3)
  return slash < 0 ? undefined : text.slice(0, slash + 1)
}

export function canonicalUri(uri: string): string {
  // a scan rather than a regular expression: this runs on every read
  for (let index = 0; index < uri.length; index += 1) {
    const code = uri.charCodeAt(index)
    if (code === 0x3a) return index === 0 ? uri : lowerScheme(uri, index)
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)
    const other = code === 0x2b || code === 0x2d || code === 0x2e || (code >= 0x30 && code <= 0x39)
    if (!(letter || (index > 0 && other))) return uri
  }
  return uri
}

function lowerScheme(uri: string, end: number): string {
  const scheme = uri.slice(0, end)
  const lower = scheme.toLowerCase()
  return lower === scheme ? uri : `${lower}${uri.slice(end)}`
}

function configError(code: string, message: string): ConfigurationError {
  return new ConfigurationError(code, message)
}

function optionalText(value: unknown, field: string, name: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw configError(
      'mcp.resource_invalid',
      `resource ${JSON.stringify(name)}: ${field} must be a non-empty string`,
    )
  }
  return value
}

/**
 * Named handler resources in registration order, validated when registered: names are unique URI-safe
 * tokens, templates are valid level-1 templates with unique text, `<scheme>://openapi` is reserved, and
 * `skill://` is reserved while skills are enabled. Every violation is a `ConfigurationError` at startup.
 */
export class MCPResourceRegistry<T> {
  readonly scheme: string
  readonly skillsEnabled: boolean
  readonly openapiUri: string
  readonly #resources: MCPConcreteResource<T>[] = []
  readonly #templates: MCPTemplateResource<T>[] = []
  readonly #byUri = new Map<string, MCPConcreteResource<T>>()
  readonly #byName = new Map<string, MCPRegisteredResource<T>>()
  /** Templates whose leading literal names their authority (`app://files/`), by that authority prefix. */
  readonly #templatesByAuthority = new Map<string, MCPTemplateResource<T>[]>()
  /** Templates whose first variable comes before the end of the authority (`app://{tenant}/`). */
  readonly #openTemplates: MCPTemplateResource<T>[] = []
  readonly #templateOrder = new Map<MCPTemplateResource<T>, number>()
  readonly #templateTexts = new Set<string>()

  constructor(options: MCPResourceRegistryOptions) {
    readOptions(options, 'MCPResourceRegistry', REGISTRY_OPTIONS)
    if (typeof options.scheme !== 'string' || !SCHEME.test(options.scheme)) {
      throw configError(
        'mcp.scheme_invalid',
        'the resource scheme must be a lower-case URI scheme such as "express"',
      )
    }
    this.skillsEnabled = options.skillsEnabled === true
    if (this.skillsEnabled && options.scheme === 'skill') {
      throw configError('mcp.skill_scheme_reserved', 'the scheme "skill" is reserved for the skills catalog')
    }
    this.scheme = options.scheme
    this.openapiUri = `${options.scheme}://${OPENAPI_RESOURCE_NAME}`
  }

  /** Concrete handler resources in registration order. */
  get resources(): readonly MCPConcreteResource<T>[] {
    return this.#resources
  }

  /** Templated handler resources in registration order (first registered wins on a read). */
  get templates(): readonly MCPTemplateResource<T>[] {
    return this.#templates
  }

  register(definition: MCPResourceDefinition<T>): MCPRegisteredResource<T> {
    const name = definition.name
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw configError(
        'mcp.resource_name_invalid',
        `resource name ${JSON.stringify(name)} must be a URI-safe token ([A-Za-z0-9_][A-Za-z0-9._~-]*)`,
      )
    }
    if (this.#byName.has(name)) {
      throw configError('mcp.resource_duplicate', `resource name ${JSON.stringify(name)} is registered twice`)
    }
    const mimeType = optionalText(definition.mimeType, 'mimeType', name)
    if (mimeType !== undefined && !MIME.test(mimeType)) {
      throw configError(
        'mcp.resource_invalid',
        `resource ${JSON.stringify(name)}: ${mimeType} is not a media type`,
      )
    }
    const ttlMs = definition.ttlMs
    if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 0)) {
      throw configError(
        'mcp.resource_invalid',
        `resource ${JSON.stringify(name)}: ttlMs must be a non-negative integer`,
      )
    }
    const base = {
      name,
      target: definition.target,
      ...optionalField('title', optionalText(definition.title, 'title', name)),
      ...optionalField('description', optionalText(definition.description, 'description', name)),
      ...optionalField('mimeType', mimeType),
      ...optionalField('ttlMs', ttlMs),
    }
    const entry =
      definition.template === undefined ? this.#concrete(base) : this.#templated(base, definition.template)
    this.#byName.set(name, entry)
    return entry
  }

  #concrete(base: EntryBase<T>): MCPConcreteResource<T> {
    const uri = `${this.scheme}://${base.name}`
    if (uri === this.openapiUri) {
      throw configError('mcp.resource_reserved', `${uri} is the built-in OpenAPI resource`)
    }
    const entry: MCPConcreteResource<T> = Object.freeze({ kind: 'resource', uri, ...base })
    this.#resources.push(entry)
    this.#byUri.set(uri, entry)
    return entry
  }

  #templated(base: EntryBase<T>, text: string): MCPTemplateResource<T> {
    // matched against URIs whose scheme is lower-cased, so the template's scheme is too
    const template = parseUriTemplate(canonicalUri(text))
    if (this.skillsEnabled && text.toLowerCase().startsWith('skill:')) {
      throw configError(
        'mcp.skill_scheme_reserved',
        `template ${text} uses skill://, reserved for the skills catalog`,
      )
    }
    if (this.#templateTexts.has(template.template)) {
      throw configError('mcp.resource_duplicate', `template ${text} is registered twice`)
    }
    const entry: MCPTemplateResource<T> = Object.freeze({
      kind: 'template',
      uriTemplate: text,
      template,
      ...base,
    })
    this.#templateOrder.set(entry, this.#templates.length)
    this.#templates.push(entry)
    this.#templateTexts.add(template.template)
    const variable = template.template.indexOf('{')
    const key = authorityPrefix(variable < 0 ? template.template : template.template.slice(0, variable))
    if (key === undefined) this.#openTemplates.push(entry)
    else {
      const bucket = this.#templatesByAuthority.get(key)
      if (bucket === undefined) this.#templatesByAuthority.set(key, [entry])
      else bucket.push(entry)
    }
    return entry
  }

  /**
   * Resolves a URI to a handler resource: concrete resources first, then templates in registration
   * order; the scheme compares case-insensitively. `visible` hides entries (a hidden template is skipped
   * and the search continues).
   */
  resolve(
    requested: string,
    visible: (resource: MCPRegisteredResource<T>) => boolean = () => true,
  ): MCPResolvedResource<T> | undefined {
    const uri = canonicalUri(requested)
    const concrete = this.#byUri.get(uri)
    if (concrete !== undefined && visible(concrete)) {
      return { resource: concrete, params: {} }
    }
    // Only templates that can match are tried: those of the URI's authority and those whose authority
    // is itself a variable, merged in registration order (the first registered still wins).
    const key = authorityPrefix(uri)
    const named = (key === undefined ? undefined : this.#templatesByAuthority.get(key)) ?? NO_TEMPLATES
    const open = this.#openTemplates
    const order = this.#templateOrder
    let i = 0
    let j = 0
    while (i < named.length || j < open.length) {
      const left = named[i]
      const right = open[j]
      let entry: MCPTemplateResource<T>
      if (right === undefined || (left !== undefined && (order.get(left) ?? 0) < (order.get(right) ?? 0))) {
        entry = left as MCPTemplateResource<T>
        i += 1
      } else {
        entry = right
        j += 1
      }
      if (!visible(entry)) continue
      const params = entry.template.match(uri)
      if (params !== undefined) return { resource: entry, params }
    }
    return undefined
  }

  /**
   * A `resource_link` to a registered resource, so a tool result always points at a URI that
   * `resources/read` resolves. Template variables are percent-encoded into the URI.
   */
  link(
    name: string,
    options: Omit<MCPResourceLinkInit, 'name' | 'uri'> & {
      readonly variables?: Readonly<Record<string, string>>
    } = {},
  ): MCPResourceLink {
    const entry = this.#byName.get(name)
    if (entry === undefined) {
      throw configError('mcp.resource_unknown', `no resource named ${JSON.stringify(name)} is registered`)
    }
    const { variables, ...rest } = options
    const uri = entry.kind === 'resource' ? entry.uri : entry.template.expand(variables ?? {})
    return new MCPResourceLink({
      name,
      uri,
      ...optionalField('mimeType', entry.mimeType),
      ...optionalField('description', entry.description),
      ...optionalField('title', entry.title),
      ...rest,
    })
  }
}

/** `{ [key]: value }` when the value is defined, `{}` otherwise (for exactOptionalPropertyTypes). */
export function optionalField<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}
