import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Each worker starts one sandbox with these options (or connects to SENDBOX_URL).
    provide: { sendboxOptions: { templates: './templates' } },
  },
})
