// What a person sees of their own account over HTTP: recent activity, sessions, signing out.
export type { ActivityRoutesOptions } from './routes.js'
export { activityRoutes } from './routes.js'
