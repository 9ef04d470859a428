// The mapping of transport failures, over the error shapes nodemailer throws (the real-server tests in
// smtp-mailer.test.ts produce most of them end to end).
import { describe, expect, it } from 'vitest'
import { mailErrorFromTransport } from '../src/index.js'

describe('mailErrorFromTransport', () => {
  it.each([
    [
      { code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO:<a@b.example>', response: '451 4.3.0 later' },
      'mail.unavailable',
      true,
    ],
    [{ code: 'EMESSAGE', responseCode: 452, command: 'DATA' }, 'mail.unavailable', true],
    [
      {
        code: 'EENVELOPE',
        responseCode: 550,
        command: 'RCPT TO:<a@b.example>',
        response: '550 5.1.1 no such user',
      },
      'mail.rejected',
      false,
    ],
    [{ code: 'EMESSAGE', responseCode: 554, command: 'DATA' }, 'mail.rejected', false],
    [
      { code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN AHVzZXIAcGFzcw==' },
      'mail.authentication_failed',
      true,
    ],
    [{ code: 'ETLS', responseCode: 500, command: 'STARTTLS' }, 'mail.unavailable', true],
    [{ code: 'EPROTOCOL', responseCode: 554, command: 'CONN' }, 'mail.unavailable', true],
    [{ code: 'ECONNECTION' }, 'mail.unavailable', true],
    [{ code: 'ETIMEDOUT' }, 'mail.unavailable', true],
    [{ code: 'EMESSAGE' }, 'mail.invalid_message', false],
    [new Error('something else'), 'mail.unavailable', true],
    ['not even an error', 'mail.unavailable', true],
  ])('%j is %s (retryable %s)', (failure, code, retryable) => {
    const error = mailErrorFromTransport(failure)
    expect(error).toMatchObject({ code, retryable })
    expect(error.cause).toBeUndefined()
  })

  it('keeps the reply code, enhanced status and verb, never the arguments or the server text', () => {
    const error = mailErrorFromTransport({
      code: 'EAUTH',
      responseCode: 535,
      response: '535 5.7.8 Authentication failed for AHVzZXIAcGFzcw==',
      command: 'AUTH PLAIN AHVzZXIAcGFzcw==',
    })
    expect(error.toJSON()).toEqual({
      name: 'MailError',
      code: 'mail.authentication_failed',
      errorClass: 'unavailable',
      message: "the mail server refused the sender's credentials (535)",
      retryable: true,
      responseCode: 535,
      enhancedStatus: '5.7.8',
      command: 'AUTH PLAIN',
      transportCode: 'EAUTH',
    })
    expect(JSON.stringify(error)).not.toContain('AHVzZXIAcGFzcw')
  })
})
