import { Effect, Metric } from "effect"
import { transientFailures } from "../../src/services/database/Transient.js"
import { recordFigures } from "./Figures.js"

const failuresWith = (state: string) =>
  Effect.map(Metric.value(Metric.tagged(transientFailures, "sqlstate", state)), (counter) => Number(counter.count))

/**
 * Runs `self` and records how many of its transactions the database aborted as serialization
 * failures (40001) or deadlocks (40P01), each retried: the figure the serializable runs report.
 */
export const reportingRetries = (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = [yield* failuresWith("40001"), yield* failuresWith("40P01")]
    const result = yield* self
    const after = [yield* failuresWith("40001"), yield* failuresWith("40P01")]
    recordFigures(name.toLowerCase().replace(/[^a-z0-9]+/g, "-"), {
      serializationFailuresRetried: after[0]! - before[0]!,
      deadlocksRetried: after[1]! - before[1]!
    })
    return result
  })
