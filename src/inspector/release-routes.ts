import * as v from 'valibot'
import {
  RelayFailure,
  RelayNotAllowedError,
  RelayNotConfiguredError,
  releaseMessage,
} from '../core/release.js'
import { str } from '../http/components.js'
import { defineOperation, type Operation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { FIELD, object, shown, string } from '../lib/schema.js'
import { PROJECT_ACCESS, SHARED_ACCESS } from '../http/viewer.js'
import { findMessage, ID } from './messages.js'

/** At most this many addresses a release: a person's own mailboxes, not a mailing. */
const MAX_RELEASE_RECIPIENTS = 10

/** A bare address, one line, nothing that could add a recipient or a header. */
const RECIPIENT = string({
  maxLength: 320,
  pattern: /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/,
  patternHint: 'a bare address such as me@acme.test (no name, no angle brackets)',
  description: 'An address one of the `--relay-allow` patterns allows.',
  examples: ['me@example.com'],
})

const RELEASE_BODY = object(
  {
    to: v.pipe(
      v.array(
        RECIPIENT,
        (issue) => `${FIELD} must be an array of addresses, not ${shown(issue.input)}.`,
      ),
      v.minLength(1, `${FIELD} needs at least one address.`),
      v.maxLength(
        MAX_RELEASE_RECIPIENTS,
        (issue) =>
          `${FIELD} has ${issue.input.length} addresses; a release takes at most ${MAX_RELEASE_RECIPIENTS}.`,
      ),
      v.description(`The real mailboxes to send it to (1 to ${MAX_RELEASE_RECIPIENTS}).`),
    ),
  },
  { requiredHints: { to: ': an array of addresses, e.g. ["me@example.com"]' } },
)

const addresses = (description: string) => v.pipe(v.array(v.string()), v.description(description))

/**
 * Release (docs/inspector.md#release-send-a-message-to-a-real-inbox): a stored message sent on
 * through the `--relay` SMTP server to addresses `--relay-allow` allows, and what the inbox
 * needs to offer it.
 */
export const releaseOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/relay',
    operationId: 'getRelay',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'Whether a message can be released, through which server, to whom.',
    description:
      'The relay as `--relay` names it without its user name or password, and the `--relay-allow` patterns. A release needs both.',
    success: {
      status: 200,
      description: 'The relay.',
      schema: v.object({
        configured: v.pipe(
          v.boolean(),
          v.description('Whether a release is possible (both flags given).'),
        ),
        url: v.pipe(
          v.nullable(v.string()),
          v.description(
            '`smtp://host:port` or `smtps://host:port`, never credentials; null without --relay.',
          ),
          v.examples(['smtp://localhost:1025']),
        ),
        allow: v.pipe(
          v.array(v.string()),
          v.description('The `--relay-allow` patterns: addresses, or `*@domain`.'),
          v.examples([['*@example.com']]),
        ),
      }),
    },
    handler: ({ ctx }) => ({
      configured: ctx.config.relay !== null && ctx.config.relayAllow.length > 0,
      url: ctx.config.relay?.url ?? null,
      allow: ctx.config.relayAllow,
    }),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/messages/:id/release',
    operationId: 'releaseMessage',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Send a stored message on to a real mailbox, through the relay.',
    description:
      'Sends the message as stored (its HTML and text, subject and From) to the given addresses through the `--relay` SMTP server, once, now; nothing is ever released otherwise. Every address must be allowed by a `--relay-allow` pattern, or nothing is sent. The release is kept on the record (`releases`) and is a `release` event on the stream.',
    params: { id: ID },
    body: {
      description: 'Where to send it.',
      schema: RELEASE_BODY,
      noun: 'release',
      limit: () => 16 * 1024,
    },
    success: {
      status: 200,
      description: 'The relay took the message for at least one address.',
      schema: v.object({
        accepted: addresses('The addresses the relay accepted.'),
        rejected: addresses('The addresses it refused (the others went).'),
        response: str("The relay's last reply.", ['250 2.0.0 Ok: queued as 4F2A1']),
      }),
    },
    errors: [
      [404, 'message_not_found'],
      [409, 'relay_not_configured'],
      [422, 'relay_not_allowed'],
      [502, 'relay_failed'],
    ],
    async handler({ ctx, params, body, caller }) {
      // A project's token releases its own messages only (another's is not found).
      const record = await findMessage(ctx, params.id, caller)
      const deps = {
        log: ctx.log,
        events: ctx.events,
        logger: ctx.logger,
        relay: ctx.config.relay,
        relayAllow: ctx.config.relayAllow,
        transport: ctx.relay,
      }
      try {
        const { result } = await releaseMessage(deps, record, body.to)
        return result
      } catch (error) {
        if (error instanceof RelayNotConfiguredError)
          throw apiError(409, 'relay_not_configured', error.message)
        if (error instanceof RelayNotAllowedError)
          throw apiError(422, 'relay_not_allowed', error.message, {
            details: error.addresses.map((address) => ({ field: 'to', address })),
          })
        if (error instanceof RelayFailure)
          throw apiError(502, 'relay_failed', error.message, {
            details: error.response === null ? [] : [{ response: error.response }],
          })
        throw error
      }
    },
  }),
]
