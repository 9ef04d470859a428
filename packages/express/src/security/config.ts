import type { SecurityOptions } from '@portcullis/http/security'
import type { Request } from 'express'

export type { OpenApiConfig, RejectionEvent, StepUpConfig } from '@portcullis/http/security'

/** The configuration of `createSecurity`; `onError` sees the Express request. */
export interface SecurityConfig extends SecurityOptions<Request> {}
