import { defineConfig } from "vitest/config"

// `npm run test:reliability`: the slow fault, crash and soak runs, one at a time.
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.slow.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
    minWorkers: 1
  }
})
