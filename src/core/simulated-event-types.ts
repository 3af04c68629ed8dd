/**
 * What a recipient can be made to do by hand (POST /_sandbox/api/messages/:id/events,
 * `sandbox.simulate`, the MCP tool simulate_event): apart from delivery.ts so that `sendbox mcp`
 * reads the one list without the delivery engine.
 */

export const SIMULATED_EVENT_TYPES = [
  'opened',
  'clicked',
  'bounced',
  'complained',
  'delivered',
] as const
export type SimulatedEventType = (typeof SIMULATED_EVENT_TYPES)[number]

/** What POST /_sandbox/api/messages/:id/events and `sandbox.simulate` take. */
export interface SimulatedEvent {
  type: SimulatedEventType
  /** A recipient's address; default: the first recipient. */
  recipient?: string
  /** `clicked`: the href of one of the message's `links` (docs/testing.md#what-a-record-carries). */
  url?: string
}
