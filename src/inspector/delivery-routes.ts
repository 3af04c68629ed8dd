import type { H3 } from 'h3'
import { getRouterParam } from 'h3'
import type { AppContext } from '../core/context.js'
import { MessageNotFoundError, parseSimulatedEvent, RecipientNotFoundError, UrlNotInMessageError } from '../core/delivery.js'
import { assertJsonContentType, parseJsonBody, readBodyText } from '../http/body.js'
import { apiError } from '../http/errors.js'
import { route } from '../http/route.js'

const EVENT_BODY_LIMIT = 64 * 1024

/**
 * POST /_sandbox/api/messages/:id/events: simulated engagement (CONTRACT §7). Checks, in this
 * order: media type (415), size (413), JSON (400), shape (422 validation_failed), the message
 * (404 message_not_found), the recipient (422 recipient_not_found), a clicked url in the HTML
 * (422 url_not_in_message). Answers 201 with the message record after the event.
 */
export function registerDeliveryRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/messages/:id/events', {
    POST: async (event) => {
      assertJsonContentType(event)
      const parsed = parseSimulatedEvent(parseJsonBody(await readBodyText(event, EVENT_BODY_LIMIT)))
      if (!parsed.ok) throw apiError(422, 'validation_failed', 'The event is not valid; details list each problem.', { details: parsed.problems })
      const id = getRouterParam(event, 'id') ?? ''
      try {
        const record = await ctx.delivery.simulate(id, parsed.value)
        event.res.status = 201
        return record
      } catch (error) {
        if (error instanceof MessageNotFoundError) throw apiError(404, 'message_not_found', `${error.message} GET /_sandbox/api/messages lists the ones there are.`)
        if (error instanceof RecipientNotFoundError) throw apiError(422, 'recipient_not_found', error.message, { details: [{ field: 'recipient', recipients: error.recipients }] })
        if (error instanceof UrlNotInMessageError) throw apiError(422, 'url_not_in_message', `${error.message} A clicked event needs one of them.`, { details: [{ field: 'url', links: error.links }] })
        throw error
      }
    },
  })
}
