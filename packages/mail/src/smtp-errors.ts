// A transport failure as a `MailError`: 4xx replies and connection failures may succeed later, 5xx
// replies never will; credentials are a configuration matter, so the message keeps waiting for them.
import { MailError, MailErrorCodes } from '@portcullis/core/mail'

/** What nodemailer puts on the errors it throws. */
interface TransportFailure {
  readonly code?: unknown
  readonly responseCode?: unknown
  readonly response?: unknown
  readonly command?: unknown
}

/**
 * Commands and transport codes of the connection itself (greeting, EHLO, the TLS upgrade): a 5xx there
 * says nothing about the message, which a fixed or recovered server will take.
 */
const CONNECTION_COMMANDS = new Set(['EHLO', 'HELO', 'LHLO', 'STARTTLS', 'CONN'])
const CONNECTION_CODES = new Set(['ETLS', 'ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'EGREETING'])

/** Transport codes that mean the message itself could not be composed: sending it again cannot help. */
const MESSAGE_FAULTS = new Set(['EMESSAGE', 'ESTREAM', 'EENVELOPE'])

function commandVerb(command: unknown): string | undefined {
  if (typeof command !== 'string') return undefined
  const verb = /^(MAIL FROM|RCPT TO|AUTH [A-Z0-9-]+|[A-Z]+)/.exec(command.trim().toUpperCase())
  return verb?.[1]
}

function enhancedStatus(response: unknown): string | undefined {
  if (typeof response !== 'string') return undefined
  return /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response)?.[1]
}

/** Maps a nodemailer error to a `MailError`; never keeps the original (it may echo what was sent). */
export function mailErrorFromTransport(error: unknown): MailError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as TransportFailure
  const transportCode = typeof failure.code === 'string' ? failure.code : undefined
  const responseCode =
    typeof failure.responseCode === 'number' && failure.responseCode >= 200 && failure.responseCode < 600
      ? failure.responseCode
      : undefined
  const details = {
    ...(responseCode === undefined ? {} : { responseCode }),
    ...(enhancedStatus(failure.response) === undefined
      ? {}
      : { enhancedStatus: enhancedStatus(failure.response) as string }),
    ...(commandVerb(failure.command) === undefined
      ? {}
      : { command: commandVerb(failure.command) as string }),
    ...(transportCode === undefined ? {} : { transportCode }),
  }
  if (transportCode === 'EAUTH' || transportCode === 'ENOAUTH') {
    return new MailError(
      MailErrorCodes.authenticationFailed,
      `the mail server refused the sender's credentials${responseCode === undefined ? '' : ` (${responseCode})`}`,
      details,
    )
  }
  const command = commandVerb(failure.command)
  if (
    (command !== undefined && CONNECTION_COMMANDS.has(command)) ||
    (transportCode !== undefined && CONNECTION_CODES.has(transportCode))
  ) {
    return new MailError(
      MailErrorCodes.unavailable,
      `the connection to the mail server could not be set up${transportCode === undefined ? '' : ` (${transportCode})`}`,
      details,
    )
  }
  if (responseCode !== undefined && responseCode >= 500) {
    return new MailError(
      MailErrorCodes.rejected,
      `the mail server refused the message (${responseCode})`,
      details,
    )
  }
  if (responseCode !== undefined && responseCode >= 400) {
    return new MailError(
      MailErrorCodes.unavailable,
      `the mail server deferred the message (${responseCode}); try again later`,
      details,
    )
  }
  if (transportCode !== undefined && MESSAGE_FAULTS.has(transportCode)) {
    return new MailError(MailErrorCodes.invalidMessage, 'the message could not be composed for SMTP', details)
  }
  return new MailError(
    MailErrorCodes.unavailable,
    `the mail server could not be reached${transportCode === undefined ? '' : ` (${transportCode})`}`,
    details,
  )
}
