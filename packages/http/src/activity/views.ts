import type { LocalSessionView } from '@portcullis/core/local-accounts'
import type { ActivityItem, SecurityLogDevice, UserAgentDescriber } from '@portcullis/core/security-log'

/** `Firefox 133 on Linux`, `Safari 18 on iOS 18.1`, `Android 15`; `Unknown device` when nothing is known. */
export function deviceName(device: SecurityLogDevice | null): string {
  if (device === null) return 'Unknown device'
  if (device.browser !== null && device.os !== null) return `${device.browser} on ${device.os}`
  return device.browser ?? device.os ?? (device.platform === null ? 'Unknown device' : `A ${device.platform}`)
}

/** One of the account's sessions as the sessions route answers it (never the session id or cookie). */
export interface SessionBody {
  /** The session's public handle. */
  readonly id: string
  readonly current: boolean
  readonly device: SecurityLogDevice | null
  readonly deviceName: string
  readonly clientAddress: string | null
  readonly createdAt: string
  readonly lastSeenAt: string
  readonly expiresAt: string
}

/** The sessions as a person reads them: this device first, then by last use (the latest first). */
export function sessionBodies(
  views: readonly LocalSessionView[],
  describe: UserAgentDescriber,
): SessionBody[] {
  const described = (userAgent: string | undefined): SecurityLogDevice | null => {
    if (userAgent === undefined) return null
    try {
      return describe(userAgent)
    } catch {
      return null
    }
  }
  return [...views]
    .sort(
      (a, b) =>
        Number(b.current) - Number(a.current) ||
        b.lastSeenAt.getTime() - a.lastSeenAt.getTime() ||
        (a.id < b.id ? -1 : 1),
    )
    .map((view) => {
      const device = described(view.userAgent)
      return {
        id: view.id,
        current: view.current,
        device,
        deviceName: deviceName(device),
        clientAddress: view.clientAddress ?? null,
        createdAt: view.createdAt.toISOString(),
        lastSeenAt: view.lastSeenAt.toISOString(),
        expiresAt: view.idleExpiresAt.toISOString(),
      }
    })
}

/** One activity item as the activity route answers it. */
export function activityBody(item: ActivityItem) {
  return {
    id: item.id,
    at: item.at.toISOString(),
    kind: item.kind,
    type: item.type,
    method: item.method,
    device: item.device,
    deviceName: deviceName(item.device),
    address: item.address,
    reason: item.reason,
    actorId: item.actorId,
    client: item.client,
  }
}
