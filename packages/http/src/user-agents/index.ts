export { describeUserAgent } from './describe.js'
