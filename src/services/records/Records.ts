import type * as SqlError from "@effect/sql/SqlError"
import { Effect, Equal, Option, Schema } from "effect"
import { AlreadyExists, NotFound, Unavailable } from "../../domain/Errors.js"
import { BudgetExpired } from "../database/DatabaseGate.js"
import { storedRow } from "./StoredRow.js"

interface Record {
  readonly id: string
}

/**
 * Create semantics shared by every resource (contract §4): the caller's id is the key; the same
 * content again is a safe retry and answers with the stored record; other content under that id
 * is `already exists`. `insert` must be an `on conflict do nothing` insert answering the number of
 * rows it inserted (nothing is read back: the caller holds the values), so that a concurrent
 * create of the same id waits for the first to commit instead of failing.
 */
export const insertOrReplay = <A extends Record>(
  resource: string,
  insert: (value: A) => Effect.Effect<number, SqlError.SqlError>,
  find: (id: A["id"]) => Effect.Effect<Option.Option<A>, SqlError.SqlError>
) =>
(value: A): Effect.Effect<A, AlreadyExists | SqlError.SqlError> =>
  Effect.flatMap(insert(value), (inserted) =>
    inserted > 0
      ? Effect.succeed(value)
      : Effect.flatMap(find(value.id), (stored) =>
        Option.isSome(stored) && Equal.equals(stored.value, value)
          ? Effect.succeed(stored.value)
          : Effect.fail(new AlreadyExists({ resource, id: value.id }))))

/**
 * A create whose budget ran out while its insert may still be queued in the database: `unavailable`
 * still, but saying that the record may be stored and how to find out, since the same request
 * again is safe (the same id answers with what was stored, and never stores twice). Any other
 * `unavailable` keeps meaning that nothing was written.
 */
export const outcomeUnknown = (resource: string, id: string) =>
<A, E, R>(create: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
  Effect.catchIf(
    create,
    (error): error is E & BudgetExpired => error instanceof BudgetExpired,
    () =>
      Effect.fail(
        new Unavailable({
          message: `the database did not answer within the operation's budget (DATABASE_OPERATION_TIMEOUT_MS), and ` +
            `${resource} ${id} may still be stored: whether it was is unknown. Get ${resource} ${id}, or send the same ` +
            "request again: the same id answers with what was stored, and is never stored twice"
        })
      )
  )

export const getOrNotFound = <Id extends string, A>(
  resource: string,
  find: (id: Id) => Effect.Effect<Option.Option<A>, SqlError.SqlError>
) =>
(id: Id): Effect.Effect<A, NotFound | SqlError.SqlError> =>
  Effect.flatMap(find(id), (found) => (Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ resource, id }))))

/**
 * Reads one stored row by its key, as `storedRow` reads a row. The key is bound as it stands, as
 * an insert binds a value's fields (SqlTable.ts `values`): an id is a string that passed the
 * domain's rules, and is its own encoded form (`Uuid` in Ids.ts encodes as the identity;
 * test/services/stored-row.test.ts holds each id's encoding to the id). Encoding it again ran its
 * checks a second time, on every read (docs/benchmarks.md §5).
 */
export const findStored = <Id extends string, AI, A, R>(options: {
  readonly Result: Schema.Schema<A, AI>
  readonly execute: (id: Id) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError, R>
}) => {
  const decode = storedRow(options.Result)
  // `execute` makes an Effect that does its work when run (a prepared statement looks at its fiber
  // then), and a row that does not decode throws in the continuation, which the fiber makes a
  // defect as Effect.sync would: neither needs an Effect of its own on every read.
  return (id: Id): Effect.Effect<Option.Option<A>, SqlError.SqlError, R> =>
    Effect.flatMap(options.execute(id), (rows) => rows.length === 0 ? Effect.succeedNone : Effect.succeed(Option.some(decode(rows[0]))))
}
