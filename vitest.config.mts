import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.spec.ts'],
    pool: 'forks',
    testTimeout: 20000,
    hookTimeout: 20000,
  },
})
