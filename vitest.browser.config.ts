import { defineConfig } from 'vitest/config'

/** `npm run test:browser`: only the inbox's end-to-end tests, one file at a time. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/temp-setup.ts', 'test/global-setup.ts', 'test/email-corpus/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
})
