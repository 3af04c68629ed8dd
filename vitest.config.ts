import { defineConfig } from 'vitest/config'

export default defineConfig({
  // The inbox page's components are TSX on Preact (tsconfig.inbox.json says the same).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The browser suite (test/browser/) is `npm run test:browser`, run by .ci/run after Chromium
    // is installed: here it ran a second time, under the load of the other files, where its
    // timing-bound steps (a two-second "Copied") were flaky.
    exclude: ['node_modules/**', 'test/browser/**'],
    // temp-setup first: the run's one temporary folder, which everything after it uses. Then
    // pg-setup: it starts the PostgreSQL tests' cluster without waiting, so initdb runs while
    // global-setup builds; spamd-setup likewise (spamd loads its rules meanwhile).
    globalSetup: [
      'test/temp-setup.ts',
      'test/pg-setup.ts',
      'test/spamd-setup.ts',
      'test/global-setup.ts',
      'test/email-corpus/setup.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Black-box tests spawn real servers; two cores, so keep the pool small.
    maxWorkers: 2,
  },
})
