import { defaultServerConditions } from 'vite'
import { portcullisTestConfig } from '../../vitest.shared.ts'

// `@opentelemetry/api` publishes an ESM build under the `module` condition whose imports have no file
// extensions, which Node cannot load; resolve it the way Node does (its `default` entry).
const conditions = ['@portcullis/source', ...defaultServerConditions.filter((name) => name !== 'module')]
const config = portcullisTestConfig()

export default {
  ...config,
  resolve: { ...config.resolve, conditions },
  ssr: { resolve: { conditions, externalConditions: ['@portcullis/source'] } },
}
