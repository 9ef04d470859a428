// The default English templates: short, one action each, and what to do if it was not you.
import { html, type SafeHtml } from './html.js'
import type { MailFactor, MailMessage, SecurityChange } from './messages.js'
import type { MailTemplateContext, MailTemplateOutput, MailTemplates } from './templates.js'

const NOT_YOU_CODE = 'If it was not you, ignore this message: nothing changes without the code.'

function greeting(message: MailMessage): string {
  return message.to.name === undefined ? 'Hello,' : `Hello ${message.to.name},`
}

function duration(minutes: number): string {
  if (minutes % (60 * 24) === 0) return plural(minutes / (60 * 24), 'day')
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour')
  return plural(minutes, 'minute')
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`
}

/** Paragraphs and an optional link, as text and as HTML; `code` is shown large in both. */
interface Body {
  readonly subject: string
  readonly lines: readonly string[]
  readonly code?: string
  readonly link?: { readonly href: string; readonly label: string }
  readonly after: readonly string[]
}

function compose(message: MailMessage, context: MailTemplateContext, body: Body): MailTemplateOutput {
  const text = [
    greeting(message),
    '',
    ...body.lines,
    ...(body.code === undefined ? [] : ['', `    ${body.code}`, '']),
    ...(body.link === undefined ? [] : ['', `${body.link.label}: ${body.link.href}`, '']),
    ...body.after,
    '',
    `${context.appName}`,
    '',
  ].join('\n')
  const paragraphs = (lines: readonly string[]): SafeHtml[] => lines.map((line) => html`<p>${line}</p>`)
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${body.subject}</title></head>
<body style="font-family: sans-serif; line-height: 1.5">
<p>${greeting(message)}</p>
${paragraphs(body.lines)}
${body.code === undefined ? null : html`<p style="font-size: 1.6em; font-family: monospace; letter-spacing: 0.1em"><strong>${body.code}</strong></p>`}
${body.link === undefined ? null : html`<p><a href="${body.link.href}">${body.link.label}</a></p>`}
${paragraphs(body.after)}
<p>${context.appName}</p>
</body></html>
`
  return { subject: body.subject, text, html: markup, language: 'en' }
}

type CodeKind = 'verification' | 'password-reset' | 'email-change-verification' | 'sign-in-code'

function codeTemplate(
  subject: (appName: string) => string,
  purpose: string,
  linkLabel: string,
  notYou: string,
) {
  return (message: Extract<MailMessage, { kind: CodeKind }>, context: MailTemplateContext) =>
    compose(message, context, {
      subject: subject(context.appName),
      lines: [`${purpose} Enter this code (valid for ${duration(message.validForMinutes)}):`],
      code: message.code,
      ...(message.link === undefined ? {} : { link: { href: message.link, label: linkLabel } }),
      after: [notYou, `Never share this code: ${context.appName} will not ask you for it.`],
    })
}

const FACTOR_NAMES: Readonly<Record<MailFactor, string>> = {
  passkey: 'A passkey',
  totp: 'An authenticator app',
  'recovery-codes': 'A set of recovery codes',
}

function describeChange(change: SecurityChange, appName: string): { subject: string; line: string } {
  switch (change.type) {
    case 'password-changed':
      return {
        subject: 'Your password was changed',
        line: `The password of your ${appName} account was changed.`,
      }
    case 'password-reset':
      return {
        subject: 'Your password was reset',
        line: `The password of your ${appName} account was reset.`,
      }
    case 'address-added':
      return { subject: 'An email address was added', line: `${change.address} was added to your account.` }
    case 'address-changed':
      return {
        subject: 'Your email address was changed',
        line: `Your account's email address is now ${change.address}.`,
      }
    case 'address-removed':
      return {
        subject: 'An email address was removed',
        line: `${change.address} was removed from your account.`,
      }
    case 'factor-added':
    case 'factor-removed': {
      const what = factorLabel(change.factor, change.label)
      const verb = change.type === 'factor-added' ? 'added to' : 'removed from'
      return {
        subject:
          change.type === 'factor-added' ? 'A sign-in method was added' : 'A sign-in method was removed',
        line: `${what} was ${verb} your account.`,
      }
    }
    case 'identity-linked':
      return {
        subject: `A ${change.provider} sign-in was linked`,
        line: `Your ${change.provider} account can now sign in to your ${appName} account.`,
      }
    case 'identity-unlinked':
      return {
        subject: `A ${change.provider} sign-in was unlinked`,
        line: `Your ${change.provider} account can no longer sign in to your ${appName} account.`,
      }
    case 'mcp-client-connected':
      return {
        subject: 'An app was connected to your account',
        line: `${change.client} can now act on your ${appName} account.`,
      }
  }
}

function factorLabel(factor: MailFactor, label: string | undefined): string {
  return label === undefined ? FACTOR_NAMES[factor] : `${FACTOR_NAMES[factor]} (${label})`
}

/** The English templates every mailer uses unless the application gives its own. */
export const defaultMailTemplates: MailTemplates = {
  verification: codeTemplate(
    (app) => `Verify your email address for ${app}`,
    'Please confirm that this address is yours.',
    'Verify your address',
    NOT_YOU_CODE,
  ),
  'password-reset': codeTemplate(
    (app) => `Reset your ${app} password`,
    'Someone asked to reset the password of your account.',
    'Reset your password',
    'If it was not you, ignore this message: your password stays as it is.',
  ),
  'email-change-verification': codeTemplate(
    (app) => `Confirm your new email address for ${app}`,
    'Please confirm that this new address is yours. Your account keeps its current address until you do.',
    'Confirm your new address',
    NOT_YOU_CODE,
  ),
  'sign-in-code': codeTemplate(
    (app) => `Your ${app} sign-in code`,
    'Someone is signing in to your account.',
    'Sign in',
    'If it was not you, ignore this message and consider changing your password.',
  ),
  invitation: (message, context) =>
    compose(message, context, {
      subject: `You are invited to join ${message.organizationName} on ${context.appName}`,
      lines: [
        `You are invited to join ${message.organizationName}. Sign in or sign up with this address, then enter this code (valid for ${plural(message.validForDays, 'day')}):`,
      ],
      code: message.code,
      link: { href: message.link, label: 'Accept the invitation' },
      after: [
        'If it was not you who was meant, ignore this message.',
        `Never share this code: ${context.appName} will not ask you for it.`,
      ],
    }),
  'email-change-notice': (message, context) =>
    compose(message, context, {
      subject: 'Your email address is being changed',
      lines: [`Someone asked to change your account's email address to ${message.newAddress}.`],
      link: { href: message.undoLink, label: 'It was not me: undo the change' },
      after: [
        `If it was not you, undo it with this link within ${plural(message.undoValidForDays, 'day')}, then change your password.`,
      ],
    }),
  'security-notification': (message, context) => {
    const { subject, line } = describeChange(message.change, context.appName)
    const when = `${message.occurredAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`
    return compose(message, context, {
      subject,
      lines: [`${line} (${when})`],
      ...(message.reviewLink === undefined
        ? {}
        : { link: { href: message.reviewLink, label: 'Review your account' } }),
      after: [
        'If it was you, there is nothing to do. If it was not you, change your password now and review your account.',
      ],
    })
  },
  'existing-account-sign-up': (message, context) =>
    compose(message, context, {
      subject: `You already have a ${context.appName} account`,
      lines: [`Someone tried to sign up with this address, which already has an account.`],
      ...(message.signInLink === undefined ? {} : { link: { href: message.signInLink, label: 'Sign in' } }),
      after: [
        ...(message.resetLink === undefined ? [] : [`Forgot your password? Reset it: ${message.resetLink}`]),
        'If it was not you, ignore this message: nothing changed.',
      ],
    }),
  'unknown-account-reset': (message, context) =>
    compose(message, context, {
      subject: `Password reset for ${context.appName}`,
      lines: [
        `Someone asked to reset a password for this address, but it has no ${context.appName} account.`,
      ],
      ...(message.signUpLink === undefined
        ? {}
        : { link: { href: message.signUpLink, label: 'Create an account' } }),
      after: ['If it was not you, ignore this message: nothing changed.'],
    }),
}
