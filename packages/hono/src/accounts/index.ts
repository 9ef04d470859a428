// Account routes for Hono: the account and its sign-in methods, the password step-up, adding and
// removing the password, deleting the account.
export type { AccountRoutesOptions } from './routes.js'
export { createAccountRoutes } from './routes.js'
