/** One call's outcome within a batch. */
type Settled<Out> = { ok: true; value: Out } | { ok: false; error: unknown }

export interface BatcherOptions {
  /**
   * When a batch of several inputs fails with an error this accepts, each input is run again in
   * a batch of its own (one after another, in order), so an input that cannot be served fails
   * alone rather than with the calls that happened to share its batch (a statement the database
   * refused as a whole).
   */
  eachAlone?: (error: unknown) => boolean
}

/**
 * Calls that arrive while a batch is under way are served together by the next one: alone, a call
 * runs at once; under load, one run (one database statement) serves every call that came in
 * meanwhile. A batch begins after each call it serves was made, so no call is answered with
 * what was true before it was made. `run` answers one output per input, in their order; when it
 * fails, every call of that batch rejects with its error (or, with `eachAlone`, is run again
 * alone), and the next batch runs as usual.
 *
 * Under bench:team's load (16 sends at once per process), a send's statements are each shared
 * by a few sends this way (docs/performance.md).
 *
 * @example
 * const lookup = createBatcher((ids: string[]) => findMany(ids))
 * const [a, b] = await Promise.all([lookup.call('msg_1'), lookup.call('msg_2')]) // one findMany(['msg_1']), then one findMany(['msg_2'])
 */
export function createBatcher<In, Out>(
  run: (inputs: readonly In[]) => Promise<readonly Out[]>,
  options: BatcherOptions = {},
) {
  /** The batch under way, settled (never rejected) once it ended: its failure is its callers'. */
  let running: Promise<void> | null = null
  /** The batch after it: the calls made meanwhile. */
  let queued: { inputs: In[]; outputs: Promise<readonly Settled<Out>[]> } | null = null
  const settled = async (inputs: readonly In[]): Promise<readonly Settled<Out>[]> => {
    try {
      return (await run(inputs)).map((value) => ({ ok: true, value }))
    } catch (error) {
      if (inputs.length < 2 || !options.eachAlone?.(error))
        return inputs.map(() => ({ ok: false, error }))
      // One after another, in the calls' order: what they write keeps the order they came in.
      const outs: Settled<Out>[] = []
      for (const input of inputs) outs.push((await settled([input]))[0]!)
      return outs
    }
  }
  const start = (inputs: readonly In[]): Promise<readonly Settled<Out>[]> => {
    const outputs = settled(inputs)
    running = outputs.then(() => {
      running = null
    })
    return outputs
  }
  const answer = (out: Settled<Out>): Out => {
    if (!out.ok) throw out.error
    return out.value
  }
  return {
    async call(input: In): Promise<Out> {
      if (!running) return answer((await start([input]))[0]!)
      if (!queued) {
        const inputs: In[] = []
        const outputs = running.then(() => {
          queued = null
          return start(inputs)
        })
        queued = { inputs, outputs }
      }
      const at = queued.inputs.push(input) - 1
      return answer((await queued.outputs)[at]!)
    },
    /** Resolves once no batch is under way or waiting (what closing waits for). */
    async idle(): Promise<void> {
      await queued?.outputs
      await running
    },
  }
}
