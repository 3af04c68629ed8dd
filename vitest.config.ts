import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/browser/ is included: it skips (and says so) when Chromium is not installed.
    exclude: ['node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Black-box tests spawn real servers; two cores, so keep the pool small.
    maxWorkers: 2,
  },
})
