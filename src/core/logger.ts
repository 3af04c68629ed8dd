/** Where the sandbox's own messages go (the console for `serve`, quiet in tests). */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string, error?: unknown): void
}
