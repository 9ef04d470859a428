export type {
  OptionKind,
  OptionRule,
  OptionShapeDescription,
  OptionsShape,
} from './options.js'
export { integerBetween, numberBetween, OptionErrorCodes, readOptions } from './options.js'
export type { ConfigurationErrorOptions, ErrorClass, PortcullisErrorOptions } from './portcullis-error.js'
export {
  ConfigurationError,
  InvalidInputError,
  isPortcullisError,
  PortcullisError,
} from './portcullis-error.js'
