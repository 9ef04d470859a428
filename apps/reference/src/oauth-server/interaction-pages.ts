import type { InteractionLayout } from '@portcullis/authorization-server'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { raw } from '../layout/html.js'
import { layout } from '../layout/layout.js'

/** How the authorization server's pages look and name people in this app. */
export interface InteractionLook {
  /** The account as its owner knows it: a demo user's display name, else its username or email. */
  name(accountId: string): Promise<string | undefined>
  /** The app's layout (header, stylesheet) around a page of the authorization server. */
  readonly layout: InteractionLayout
}

/**
 * The consent and error pages of the authorization server in the app's own layout. The page's content is
 * already escaped by the authorization server (`raw` keeps it); the title is escaped by the layout.
 */
export function interactionLook(directory: DemoDirectory): InteractionLook {
  const name = async (accountId: string) =>
    directory.user(accountId)?.displayName ?? (await directory.names.resolve(accountId))
  return {
    name,
    layout: (page) => {
      const viewer =
        page.account === undefined
          ? undefined
          : {
              accountId: page.account.id,
              username: directory.user(page.account.id)?.username ?? page.account.name,
              displayName: page.account.name,
            }
      return layout({ title: page.title, area: 'apps', viewer, body: raw(page.body) }).toString()
    },
  }
}
