import type { ApiKeyDirectory, ApiKeyService, ApiKeyStore } from '@portcullis/core/api-keys'
import type { Impersonations } from '@portcullis/core/impersonation'
import type { PostgresClient } from '@portcullis/postgres'
import type { DemoDirectory } from './directory/demo-directory.js'
import type { DevelopmentMailbox } from './mail/development-mailbox.js'
import type { ReferenceOrganizations } from './organizations/organization-wiring.js'
import type { ProviderSettings } from './providers/provider-settings.js'
import type { SecurityEventLog } from './security-events/event-log.js'

/** What the area routers share: storage, the directory, the event log and where things are. */
export interface ReferenceContext {
  readonly postgres: PostgresClient
  readonly directory: DemoDirectory
  /** Organizations and memberships (the tenants), invitations by email. */
  readonly organizations: ReferenceOrganizations
  readonly events: SecurityEventLog
  readonly apiKeys: {
    readonly service: ApiKeyService
    readonly store: ApiKeyStore
    /** Lists an owner's keys (the same Postgres store, as its `ApiKeyDirectory` port). */
    readonly directory: ApiKeyDirectory
  }
  /** Refuses what an impersonation must not do (keys, invitations, join approvals). */
  readonly impersonations: Pick<Impersonations, 'refuse'>
  /** The origin browsers and clients use. */
  readonly publicOrigin: string
  /** The key of the pages' sealed cookies, the same on every instance (see `KeyMaterial.pageCookieKey`). */
  readonly pageCookieKey: Uint8Array
  /** The demo OpenID Provider, when it runs. */
  readonly idp?: { readonly issuer: string }
  readonly providers: readonly ProviderSettings[]
  /** The development mailbox (`/dev/mailbox`), when it runs: never in production. */
  readonly mailbox?: DevelopmentMailbox
}
