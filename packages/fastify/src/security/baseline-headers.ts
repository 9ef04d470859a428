import { securityHeaders } from '@portcullis/http/headers'

// The header baseline the plugin sends, by the instance it was registered on, for answers written before
// any hook runs (the router's own URL errors).
const BASELINES = new WeakMap<object, Readonly<Record<string, string>>>()
const DEFAULT_BASELINE: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(securityHeaders()),
)

export function rememberBaselineHeaders(instance: object, headers: Readonly<Record<string, string>>): void {
  BASELINES.set(instance, headers)
}

/** The plugin's baseline (with its `headers` overrides) when it is registered on `instance`; else the default one. */
export function baselineHeadersOf(instance: object): Readonly<Record<string, string>> {
  return BASELINES.get(instance) ?? DEFAULT_BASELINE
}
