import { defineConfig } from '@playwright/test'
import type { SendboxOptions } from 'sendbox'

export default defineConfig<{ sendboxOptions: SendboxOptions }>({
  testDir: '.',
  fullyParallel: true,
  workers: 2,
  use: {
    // Each worker starts one sandbox with these options (or connects to SENDBOX_URL).
    sendboxOptions: { templates: './templates' },
    // Debian's Chromium; Playwright downloads none.
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
})
