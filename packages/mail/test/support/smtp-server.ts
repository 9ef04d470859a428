// A real SMTP server in the test process (smtp-server), with a certificate made by openssl at run time
// (no key is ever committed): what it receives is parsed with mailparser.
import type { AddressInfo } from 'node:net'
import { loopbackCertificate } from '@portcullis/test-support/certificates'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

const loopback = () => loopbackCertificate({ commonName: 'portcullis smtp test' })

export const CERTIFICATE = loopback()
/** Another certificate that nobody trusts (a server impersonating the real one). */
export const UNTRUSTED = loopback()

export interface Received {
  readonly envelope: { readonly from: string; readonly to: readonly string[] }
  readonly raw: string
  readonly parsed: ParsedMail
  readonly secure: boolean
  readonly user: string | undefined
}

export interface TestSmtpServer {
  readonly port: number
  readonly received: Received[]
  /** Connections opened so far, and how many were upgraded to TLS (implicitly or by STARTTLS). */
  readonly connections: { opened: number; secured: number }
  close(): Promise<void>
}

export interface TestSmtpServerOptions {
  readonly secure?: boolean
  readonly starttls?: boolean
  readonly certificate?: { readonly key: string; readonly cert: string }
  /** Accepted credentials; when set, AUTH is required. */
  readonly users?: Readonly<Record<string, string>>
  /** An SMTP reply code to answer RCPT TO with (451, 550). */
  readonly rcptReply?: number
  /** The loopback port to listen on (a server coming back where it was); default a free one. */
  readonly port?: number
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code })
}

export async function startSmtpServer(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
  const received: Received[] = []
  const connections = { opened: 0, secured: 0 }
  const certificate = options.certificate ?? CERTIFICATE
  const users = options.users
  // key and cert are tls.TlsOptions members, which the bundled types do not resolve here.
  const serverOptions: SMTPServerOptions = {
    secure: options.secure === true,
    logger: false,
    banner: 'portcullis test',
    disabledCommands: options.starttls === false ? ['STARTTLS'] : [],
    hideSTARTTLS: options.starttls === false,
    authOptional: users === undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    onConnect(_session, callback) {
      connections.opened++
      callback()
    },
    onSecure(_socket, _session, callback) {
      connections.secured++
      callback()
    },
    onAuth(auth, _session, callback) {
      if (users !== undefined && auth.username !== undefined && users[auth.username] === auth.password) {
        callback(null, { user: auth.username })
      } else {
        callback(smtpError(535, 'Authentication failed'))
      }
    },
    onRcptTo(_address, _session, callback) {
      if (options.rcptReply !== undefined) callback(smtpError(options.rcptReply, 'Not now'))
      else callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              envelope: {
                from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
                to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              },
              raw,
              parsed,
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : undefined,
            })
            callback()
          },
          (error: Error) => callback(error),
        )
      })
    },
  }
  const tlsMaterial = { key: certificate.key, cert: certificate.cert }
  const server = new SMTPServer({ ...serverOptions, ...tlsMaterial } as SMTPServerOptions)
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    port,
    received,
    connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
