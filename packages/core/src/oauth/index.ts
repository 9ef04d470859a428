// OAuth: transaction state (./transactions) and linked accounts with their token vault (./accounts).

export * as accounts from './accounts/index.js'
export * as transactions from './transactions/index.js'
