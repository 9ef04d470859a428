import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the API key domain, and their classes:
 * - `api_key.not_found` (invalid-input): no record with that key id;
 * - `api_key.not_active` (conflict): the key is already revoked or expired (a second rotation loses here);
 * - `api_key.duplicate_key_id` (conflict): a record with that key id exists;
 * - `api_key.invalid_record` / `api_key.invalid_input` (invalid-input): a record or argument breaks the rules;
 * - `api_key.generation_failed` (unavailable): the random source failed or answered the wrong length.
 */
export type ApiKeyErrorCode =
  | 'api_key.not_found'
  | 'api_key.not_active'
  | 'api_key.duplicate_key_id'
  | 'api_key.invalid_record'
  | 'api_key.invalid_input'
  | 'api_key.generation_failed'

const CLASSES: Record<ApiKeyErrorCode, ErrorClass> = {
  'api_key.not_found': 'invalid-input',
  'api_key.not_active': 'conflict',
  'api_key.duplicate_key_id': 'conflict',
  'api_key.invalid_record': 'invalid-input',
  'api_key.invalid_input': 'invalid-input',
  'api_key.generation_failed': 'unavailable',
}

/** The API key domain error. Messages name key ids at most, never key values, secrets or digests. */
export class ApiKeyError extends PortcullisError {
  declare readonly code: ApiKeyErrorCode

  constructor(code: ApiKeyErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
  }
}
