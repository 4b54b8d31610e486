import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Duration, Effect, Schedule } from "effect"
import { Unavailable } from "../domain/Errors.js"

// SQLSTATEs worth retrying: serialization failure, deadlock, connection exceptions (class 08),
// server shutting down or starting up, too many connections, out of memory.
const transientStates = /^(40001|40P01|08...|57P0[1-3]|53300|53200)$/
const transientNodeCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"])
const transientMessages = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection ended|Client has encountered a connection error|Connection timed out/i

const causes = function*(error: unknown): Generator<unknown> {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    yield cause
    cause = (cause as { cause?: unknown }).cause
  }
}

/** True for failures that a later attempt may not see: the transaction or connection, not the request. */
export const isTransient = (error: SqlError.SqlError): boolean => {
  for (const cause of causes(error)) {
    const { code, message } = cause as { code?: unknown; message?: unknown }
    if (typeof code === "string" && (transientStates.test(code) || transientNodeCodes.has(code))) return true
    if (typeof message === "string" && transientMessages.test(message)) return true
    if (cause instanceof AggregateError && cause.errors.some((e) => transientNodeCodes.has((e as any)?.code))) return true
  }
  return false
}

/** Bounded exponential backoff: 25, 50, 100, 200, 400 ms (jittered), then the caller sees `unavailable`. */
export const retrySchedule = Schedule.exponential("25 millis", 2).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(5))
)

/**
 * The most time one unit of work (a create, a read, a whole workflow transaction, retries
 * included) may take before the caller is told `unavailable`: a database that stops answering
 * (a dead host, a cut network) must not hang callers.
 */
export class OperationBudget extends Context.Reference<OperationBudget>()("OperationBudget", {
  defaultValue: () => Duration.seconds(10)
}) {}

const unavailable = () => new Unavailable({ message: "the database is unavailable; try again later" })

/**
 * Turns database errors into domain errors: transient ones into `Unavailable` (retried), anything
 * else is a defect (a bug or a broken schema, reported as `internal`). Retrying happens only at the
 * outermost unit of work: inside a transaction a failed statement has aborted the transaction, so
 * only the whole transaction can be tried again, by whoever opened it.
 */
export const databaseOperation = <A, E, R>(
  self: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Unavailable, R> => {
  const classified = Effect.catchIf(
    self,
    (e): e is SqlError.SqlError => (e as { _tag?: unknown })?._tag === "SqlError",
    (error) =>
      isTransient(error) ? Effect.fail(unavailable()) : Effect.die(error)
  ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | Unavailable, R>
  return Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
    transaction._tag === "Some"
      ? classified
      : Effect.flatMap(OperationBudget, (budget) =>
        Effect.retry(
          classified,
          Schedule.intersect(retrySchedule, Schedule.recurWhile((e: unknown) => e instanceof Unavailable))
        ).pipe(
          // Interrupting a statement cancels it on the server and rolls back an open transaction.
          Effect.timeoutFail({ duration: budget, onTimeout: unavailable })
        )))
}
