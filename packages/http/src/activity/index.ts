// What a person sees of their own account over HTTP, for any framework: recent activity (from the
// security log), the signed-in sessions with their devices, signing out one or every other.
export { ACTIVITY_ROUTE_DOCS } from './openapi.js'
export type { ActivityRouteTableOptions } from './routes.js'
export {
  ACTIVITY_HEADERS,
  ACTIVITY_PAGE_DEFAULT,
  ACTIVITY_ROUTE_TABLE_OPTIONS,
  activityRouteTable,
  signOutOtherSessions,
} from './routes.js'
export type { SessionBody } from './views.js'
export { activityBody, deviceName, sessionBodies } from './views.js'
