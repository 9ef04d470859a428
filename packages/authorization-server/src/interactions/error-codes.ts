/** Stable codes of the interaction's refusals (problem+json `code`, and the HTML page's reason). */
export const InteractionErrorCodes = Object.freeze({
  notFound: 'authorization_server.interaction_not_found',
  expired: 'authorization_server.interaction_expired',
  method: 'authorization_server.interaction_method',
  csrf: 'authorization_server.interaction_csrf_refused',
  body: 'authorization_server.interaction_body',
  prompt: 'authorization_server.interaction_prompt',
  unavailable: 'authorization_server.interaction_unavailable',
  failed: 'authorization_server.interaction_failed',
  /** The user's session is an impersonation: it never approves a client (403). */
  impersonated: 'authorization_server.interaction_impersonated',
} as const)
