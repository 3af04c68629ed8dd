import {
  MessageNotFoundError,
  RecipientNotFoundError,
  SIMULATED_EVENT,
  UrlNotInMessageError,
} from '../core/delivery.js'
import { MESSAGE_RECORD } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { PROJECT_ACCESS } from '../http/viewer.js'
import { findMessage, ID } from './messages.js'

const EVENT_BODY_LIMIT = 64 * 1024

/**
 * POST /_sandbox/api/messages/:id/events: simulated engagement (docs/delivery.md). After the body's
 * checks (415, 413, 400, 422 validation_failed): the message (404 message_not_found), the
 * recipient (422 recipient_not_found), a clicked url in the HTML (422 url_not_in_message).
 */
export const deliveryOperations = [
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/messages/:id/events',
    operationId: 'simulateEvent',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Simulate what a recipient did: opened, clicked, bounced, complained, delivered.',
    description:
      "Appends the event to the recipient (the first when none is named), updates the states, and fires its webhook. A `clicked` needs a `url`: the `href` of one of the message's `links`. Answers the record after it. A simulated event takes the recipient over: its remaining automatic steps are dropped.",
    params: { id: ID },
    body: {
      description: 'The event to simulate.',
      schema: SIMULATED_EVENT,
      noun: 'event',
      limit: () => EVENT_BODY_LIMIT,
    },
    success: {
      status: 201,
      description: 'The message record after the event.',
      schema: MESSAGE_RECORD,
    },
    errors: [
      [404, 'message_not_found'],
      [422, 'recipient_not_found'],
      [422, 'url_not_in_message'],
    ],
    async handler({ ctx, params, body, caller }) {
      await findMessage(ctx, params.id, caller)
      try {
        return ctx.reader.read(await ctx.delivery.simulate(params.id, body))
      } catch (error) {
        if (error instanceof MessageNotFoundError)
          throw apiError(
            404,
            'message_not_found',
            `${error.message} GET /_sandbox/api/messages lists the ones there are.`,
          )
        if (error instanceof RecipientNotFoundError)
          throw apiError(422, 'recipient_not_found', error.message, {
            details: [{ field: 'recipient', recipients: error.recipients }],
          })
        if (error instanceof UrlNotInMessageError)
          throw apiError(
            422,
            'url_not_in_message',
            `${error.message} A clicked event needs one of them.`,
            { details: [{ field: 'url', links: error.links }] },
          )
        throw error
      }
    },
  }),
]
