import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import { Context, Duration, Effect, FiberRef, Layer, Metric, Option, Predicate, Schedule } from "effect"
import { Unavailable } from "../../domain/Errors.js"
import { UnitOfWorkReferences } from "../../operations/DatabaseAccess.js"
import { databaseUnavailable, DatabaseGateRef } from "./DatabaseGate.js"
import { giveBackKept } from "./UnitConnection.js"
import { withinBudget } from "./WithinBudget.js"
import { spanAttribute, spanEvent } from "./SpanAttribute.js"

// SQLSTATEs worth retrying: serialization failure, deadlock, connection exceptions (class 08),
// server shutting down or starting up (57P01-57P03: a primary stopped for a failover or a
// switchover), a read-only transaction (25006: a primary demoted under us), too many connections,
// out of memory.
const transientStates = /^(40001|40P01|08...|57P0[1-3]|25006|53300|53200)$/
const transientNodeCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"])

/**
 * node-postgres's failures that carry no code, by message: each transient, and named for the
 * metric. "Connection terminated" covers its "... unexpectedly" and "... due to connection
 * timeout"; the second line is the pool's and the client's wait for a new connection.
 */
const codeLessFailures: ReadonlyArray<readonly [RegExp, string]> = [
  [/Connection terminated|Connection ended|Client has encountered a connection error/i, "connection_lost"],
  [/connection timeout|timeout exceeded when trying to connect|Connection timed out/i, "connect_timeout"]
]

const codeLessLabel = (message: string): string | undefined => codeLessFailures.find(([pattern]) => pattern.test(message))?.[1]

/** A field of an error from a driver or from Node, whose shape no type declares: unknown until checked. */
const fieldOf = (value: unknown, key: "cause" | "code" | "message"): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined

const causes = function*(error: unknown): Generator<unknown> {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    yield cause
    cause = fieldOf(cause, "cause")
  }
}

/**
 * The SQLSTATE (or Node error code) behind a database error, for metrics, spans and retries;
 * `connection_lost` or `connect_timeout` for node-postgres's failures that carry no code.
 */
export const sqlState = (error: unknown): string => {
  for (const cause of causes(error)) {
    const code = fieldOf(cause, "code")
    if (typeof code === "string") return code
  }
  for (const cause of causes(error)) {
    const message = fieldOf(cause, "message")
    const label = typeof message === "string" ? codeLessLabel(message) : undefined
    if (label !== undefined) return label
  }
  return "unknown"
}

/** Transient failures met, each of which the unit of work is retried after (or given up on). */
export const transientFailures = Metric.counter("onboarding_db_transient_failures_total", {
  description: "Transient database failures met (each retried, up to the schedule), by SQLSTATE or Node error code"
})

/**
 * A retry, traced, is a span of its own showing the SQLSTATE that ended it. The first attempt, where
 * nearly every unit of work ends, has none: it would repeat the span it runs in (the operation's,
 * or the server span standing for it), and spans are most of what tracing costs a call
 * (docs/benchmarks.md §5); its failure is an event on that span.
 */
const retryAttempt = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withSpan(self, "database attempt", { captureStackTrace: false })

/**
 * `sql.withTransaction`, with a failed COMMIT (or ROLLBACK) as the failure it is. @effect/sql turns
 * it into a defect, but a serializable transaction is often refused at its commit (40001, "canceled
 * on commit attempt"; CockroachDB reports most conflicts there), and a connection can be lost while
 * committing: both must reach `databaseOperation` to be retried, not end the call as `internal`.
 * A retry after a lost commit is safe where the unit of work is idempotent (the workflow is: its
 * id is fixed before the first attempt, and a second attempt finds the first's run).
 */
export const transaction = (sql: SqlClient.SqlClient) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catchSomeDefect(
    // The unit's kept connection goes back first: its permit stands for one pool client.
    Effect.withFiberRuntime<A, E | SqlError.SqlError, R>((fiber) => (giveBackKept(fiber), sql.withTransaction(self))),
    (defect) => (defect instanceof SqlError.SqlError ? Option.some(Effect.fail(defect)) : Option.none())
  )

/** One of the errors Node gathers when every address of a host failed (`AggregateError`). */
const hasTransientNodeCode = (error: unknown): boolean => {
  const code = fieldOf(error, "code")
  return typeof code === "string" && transientNodeCodes.has(code)
}

/** True for failures that a later attempt may not see: the transaction or connection, not the request. */
export const isTransient = (error: SqlError.SqlError): boolean => {
  for (const cause of causes(error)) {
    const code = fieldOf(cause, "code")
    const message = fieldOf(cause, "message")
    if (typeof code === "string" && (transientStates.test(code) || transientNodeCodes.has(code))) return true
    if (typeof message === "string" && codeLessLabel(message) !== undefined) return true
    if (cause instanceof AggregateError && cause.errors.some(hasTransientNodeCode)) return true
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

/** What a unit of work reads from its fiber, for the edge to keep in each call's context. */
export const unitOfWorkReferences = Layer.succeed(UnitOfWorkReferences, [OperationBudget, DatabaseGateRef])

const isUnavailable = (e: unknown): e is Unavailable => e instanceof Unavailable

/**
 * Retries transient failures on `retrySchedule`. The schedule is only set up once the first attempt
 * has failed: on the path nearly every call takes, a retry driver would be pure per-request cost.
 * The retry loop starts by replaying that first failure, so the delays and the count are the
 * schedule's own.
 */
const retryingTransient = <A, E, R>(attempt: Effect.Effect<A, E | Unavailable, R>, retry: typeof attempt) =>
  Effect.catchIf(attempt, isUnavailable, (first) => {
    let replayed = false
    const again = Effect.suspend(() => {
      if (replayed) return retry
      replayed = true
      return Effect.fail(first)
    })
    return Effect.retry(again, Schedule.intersect(retrySchedule, Schedule.recurWhile(isUnavailable)))
  })

const readOnly = "25006"

/**
 * 25006 is retried, but a retry may well get the same pooled connection, as read-only as before.
 * It clears when the session is cut: Patroni restarts a demoted primary, and haproxy on
 * `/primary` (`shutdown-sessions`) cuts every session to it, so the next connection reaches the
 * new primary. When it persists, DATABASE_URL reaches a standby: said in the log.
 */
const readOnlyWarning = Effect.logWarning(
  "database: a write met a read-only transaction (25006): DATABASE_URL reaches a node that is not the primary " +
    "(a demoted primary, until its sessions are cut, or a standby); retried"
)

const isSqlError = (e: unknown): e is SqlError.SqlError => Predicate.isTagged(e, "SqlError")

/**
 * A statement's failure as the unit's: a transient one as `Unavailable` (retried), told to the
 * current span by `tell`; anything else a defect.
 */
const classify = (tell: (state: string) => Effect.Effect<void>) => (error: SqlError.SqlError) =>
  Effect.withFiberRuntime<never, Unavailable>((fiber) => {
    // The connection the statement ran on may be broken: the unit's next statement takes another.
    giveBackKept(fiber)
    if (!isTransient(error)) return Effect.die(error)
    const state = sqlState(error)
    return Metric.increment(Metric.tagged(transientFailures, "sqlstate", state)).pipe(
      Effect.zipRight(state === readOnly ? readOnlyWarning : Effect.void),
      Effect.zipRight(tell(state)),
      Effect.zipRight(Effect.fail(databaseUnavailable()))
    )
  })

const onFirstAttempt = classify((state) => spanEvent("database attempt failed", { "db.response.status_code": state }))
const onRetry = classify((state) => spanAttribute("db.response.status_code", state))

/**
 * Turns database errors into domain errors: transient ones into `Unavailable` (retried), anything
 * else is a defect (a bug or a broken schema, reported as `internal`). Retrying happens only at the
 * outermost unit of work: inside a transaction a failed statement has aborted the transaction, so
 * only the whole transaction can be tried again, by whoever opened it.
 */
export const databaseOperation = <A, E, R>(
  self: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Unavailable, R> => unitOfWork(self, false)

/**
 * `databaseOperation` for a read: its failure past the budget reaches its caller as it is, so it
 * may run in its caller's fiber (InCaller.ts).
 */
export const databaseRead = <A, E, R>(
  self: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Unavailable, R> => unitOfWork(self, true)

const unitOfWork = <A, E, R>(
  self: Effect.Effect<A, E | SqlError.SqlError, R>,
  read: boolean
): Effect.Effect<A, Exclude<E, SqlError.SqlError> | Unavailable, R> => {
  // What runs once per unit of work, and again for each statement inside a transaction: the
  // handlers are made once, not per call.
  const first = Effect.catchIf(self, isSqlError, onFirstAttempt)
  // One look at the fiber for the open transaction, the budget, the gate and the tracer.
  return Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext
    if (Option.isSome(Context.getOption(context, SqlClient.TransactionConnection))) return first
    const retry = fiber.getFiberRef(FiberRef.currentTracerEnabled)
      ? retryAttempt(Effect.catchIf(self, isSqlError, onRetry))
      : first
    return withinBudget(retryingTransient(first, retry), Context.get(context, OperationBudget), Context.get(context, DatabaseGateRef), read)
  })
}
