/** The transport one sign-in establishes. */
export type LocalTransport = 'session' | 'tokens'
