export type { ErrorClass, PortcullisErrorOptions } from './portcullis-error.js'
export {
  ConfigurationError,
  InvalidInputError,
  isPortcullisError,
  PortcullisError,
} from './portcullis-error.js'
