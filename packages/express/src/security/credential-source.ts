import type { CredentialSource } from '@portcullis/core/authentication'
import { RawCredentialSource, rawHeader } from '@portcullis/http/security'
import type { Request } from 'express'

/**
 * The framework-neutral view of an Express request (the path is taken from `originalUrl`, so a router
 * mounted at a prefix still reports the whole path). A header sent several times is answered joined
 * with `, `, so a duplicated credential is presented as malformed rather than silently picking one copy.
 */
export function credentialSource(request: Request): CredentialSource {
  return new RawCredentialSource(request, request.originalUrl)
}

/** Every line of header `name` (lower case) joined with `, `, or undefined when absent. */
export function singleHeader(request: Request, name: string): string | undefined {
  return rawHeader(request.rawHeaders, name)
}
