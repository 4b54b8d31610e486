import { Effect, Layer } from "effect"
import * as Database from "../../services/database/Database.js"
import { databaseOptions } from "../DatabaseSettings.js"
import { databaseLayer, runMain } from "../Commands.js"
import { migrateUsage } from "../Usage.js"

// `npm run migrate`: applies the migrations the database lacks and exits, as a deploy step that
// runs before the new version starts (which can then run with MIGRATE=off).
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(migrateUsage)
  process.exit(0)
}

runMain(
  "migrate",
  Effect.gen(function*() {
    const database = yield* databaseOptions
    yield* Effect.logInfo(`migrate: database ${Database.describe(database)}`)
    yield* Layer.build(databaseLayer("migrate", database, "apply"))
  }).pipe(Effect.scoped)
)
