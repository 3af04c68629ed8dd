/** Types of pg-cluster.js (plain JavaScript, so that .ci/run and the global setup load it as is). */
export interface Cluster {
  url: string
  port: number
  dir: string
  /** Settles once the cluster accepts connections. */
  ready: Promise<void>
  urlOf(database: string): string
  start(): Promise<unknown>
  stop(): Promise<unknown>
  destroy(): Promise<void>
}
export function findPgBin(): string | null
/**
 * `durable`: PostgreSQL's own settings (fsync on), where the tests turn durability off;
 * `settings`: more `name=value` settings, each passed as `-c`.
 */
export function startCluster(options?: {
  bin?: string
  durable?: boolean
  settings?: string[]
}): Promise<Cluster>
export function planCluster(options?: {
  bin?: string | null
  durable?: boolean
  settings?: string[]
}): Promise<Cluster>
