import type { WebhookDelivery } from './webhook-types.js'

/**
 * The queue of one webhook URL. The events of one message form a lane, delivered strictly in
 * order: the next waits until the one before got a 2xx or ran out of retries. Different
 * messages' lanes go out side by side, up to `maxInFlight` attempts at once.
 */
export interface EndpointQueue {
  readonly url: string
  /** Adds the delivery at the end of its message's lane (call `pump` to start it). */
  push(delivery: WebhookDelivery): void
  /** Starts the heads of ready lanes, oldest lane first, while there is room. */
  pump(): void
  /**
   * A manual attempt got `delivery` through: when it heads its lane, waiting for an automatic
   * retry, that wait is over and the lane moves on. False when it was not waiting so.
   */
  delivered(delivery: WebhookDelivery): boolean
  /** Stops every retry timer; later pumps do nothing. */
  close(): void
}

export interface LaneHooks {
  maxInFlight: number
  /** One automatic attempt of a lane's head; records the outcome on the delivery. */
  attempt(delivery: WebhookDelivery): Promise<unknown>
  /** After an automatic attempt: `settled` (it leaves the lane) or the milliseconds until the next. */
  decide(delivery: WebhookDelivery): 'settled' | number
  /** A lane's head settled and left it. */
  settled(delivery: WebhookDelivery): void
}

interface Lane {
  key: string
  queue: WebhookDelivery[]
  /** The head is being attempted. */
  busy: boolean
  timer: NodeJS.Timeout | null
}

/**
 * @example
 * const queue = createEndpointQueue('http://127.0.0.1:4000/hooks', { maxInFlight: 64, attempt, decide, settled })
 * queue.push(delivery) // its message's lane, behind that message's earlier events
 * queue.pump()
 */
// Long because push, pump, advance and a manual retry's `delivered` all change the same lanes,
// ready list and in-flight count, which must change together (a lane is busy, waiting or ready).
export function createEndpointQueue(url: string, hooks: LaneHooks): EndpointQueue {
  const lanes = new Map<string, Lane>()
  /** Lanes whose head may be attempted now, in arrival order. */
  let ready: Lane[] = []
  let inFlight = 0
  let closed = false

  /** The lane's head is settled: it leaves, and the lane goes on with the next one. */
  function advance(lane: Lane): void {
    const done = lane.queue.shift()!
    hooks.settled(done)
    if (lane.queue.length > 0) ready.push(lane)
    else lanes.delete(lane.key)
  }

  function afterAttempt(lane: Lane, delivery: WebhookDelivery): void {
    const next = hooks.decide(delivery)
    if (next === 'settled') return advance(lane)
    lane.timer = setTimeout(() => {
      lane.timer = null
      ready.push(lane)
      pump()
    }, next)
    lane.timer.unref()
  }

  function pump(): void {
    while (!closed && inFlight < hooks.maxInFlight && ready.length > 0) {
      const lane = ready.shift()!
      const head = lane.queue[0]
      if (!head || lane.busy) continue
      // A manual retry got it through while it waited its turn.
      if (head.status === 'delivered') {
        advance(lane)
        continue
      }
      lane.busy = true
      inFlight++
      // An attempt records its network failures itself; one that throws all the same (a bug)
      // must end like a failed one, not leave its lane busy for good and its rejection unheard.
      const attempted = hooks.attempt(head).catch(() => undefined)
      void attempted.then(() => {
        inFlight--
        lane.busy = false
        if (closed) return
        afterAttempt(lane, head)
        pump()
      })
    }
  }

  return {
    url,
    push(delivery) {
      let lane = lanes.get(delivery.messageId)
      if (!lane) {
        lane = { key: delivery.messageId, queue: [], busy: false, timer: null }
        lanes.set(delivery.messageId, lane)
        ready.push(lane)
      }
      lane.queue.push(delivery)
    },
    pump,
    delivered(delivery) {
      const lane = lanes.get(delivery.messageId)
      if (closed || !lane || lane.queue[0] !== delivery || lane.busy) return false
      if (lane.timer) clearTimeout(lane.timer)
      lane.timer = null
      advance(lane)
      pump()
      return true
    },
    close() {
      closed = true
      for (const lane of lanes.values()) if (lane.timer) clearTimeout(lane.timer)
      lanes.clear()
      ready = []
    },
  }
}
