/** A port is taken: the message is one line naming the port and the variable that moves it. */
export class PortInUseError extends Error {
  readonly port: number
  constructor(host: string, port: number, variable: 'PORT' | 'PORTCULLIS_IDP_PORT' = 'PORT') {
    const what = variable === 'PORT' ? '' : ' (demo identity provider)'
    const alternative = variable === 'PORT' ? '' : ', or turn it off with PORTCULLIS_DEMO_IDP=false'
    super(
      `port ${port} on ${host}${what} is already in use; set ${variable} to a free port (for example ${variable}=${port + 1} pnpm start)${alternative}`,
    )
    this.name = 'PortInUseError'
    this.port = port
  }
}
