import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import * as Pg from "pg"
import { pooledClient } from "../../src/services/database/DatabasePool.js"
import { preparedStatements } from "../../src/services/records/Prepared.js"
import { databaseOperation, OperationBudget, transaction } from "../../src/services/database/Transient.js"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"

/*
 * A unit of work outside a transaction runs its statements on a pool client it keeps, handed from
 * one unit to the next by the process's gate (src/services/database/UnitConnection.ts), on PostgreSQL: the
 * same backend serves unit after unit; a unit that opens a transaction, or whose statement failed,
 * gives it back first, so that a unit never waits for a second client while it keeps one; and the
 * pool's connections are all closed when the client's layer is.
 */

const backendPid = "select pg_backend_pid() as pid"

/** One statement on a connection of its own to the server. */
const onServer = (text: string, params: ReadonlyArray<unknown>) =>
  Effect.promise(async () => {
    const client = new Pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      return (await client.query(text, [...params])).rows as ReadonlyArray<unknown>
    } finally {
      await client.end()
    }
  })

/** A pooled client on a database of its own, `max` connections, built in the test's scope. */
const pooled = (max: number) =>
  Effect.gen(function*() {
    const database = yield* freshServerDatabase(serverUrl!)
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      pooledClient({ connectionString: database.url, max, connectionTimeoutMillis: 120_000, application_name: database.name }, 100),
      scope
    )
    const { statements, sql } = yield* Effect.provide(
      Effect.all({ statements: preparedStatements, sql: SqlClient.SqlClient }),
      context
    )
    // As a port without tracing runs its calls (a traced statement goes through `sql.unsafe`, for its span).
    // A unit waiting for a client the pool will not have (the pool's wait far longer) ends at its budget.
    const run = <A, E>(unit: Effect.Effect<A, E, never>) =>
      Effect.provide(unit, context).pipe(Effect.withTracerEnabled(false), Effect.provideService(OperationBudget, Duration.seconds(5)))
    const pid = run(databaseOperation(statements.rows(backendPid)([]))).pipe(
      Effect.map((rows) => (rows[0] as { pid: number }).pid)
    )
    /** The server's connections of this client, by its application name. */
    const connections = onServer("select count(*)::int as n from pg_stat_activity where application_name = $1", [database.name])
      .pipe(Effect.map((rows) => (rows[0] as { n: number }).n))
    /** The pool's other client, held outside any unit for the rest of the test (a pool of two keeps one). */
    const holdTheOther = Effect.flatMap(Scope.make(), (held) =>
      Effect.zipRight(Effect.addFinalizer(() => Scope.close(held, Exit.void)), Scope.extend(sql.reserve, held)))
    return { statements, sql, run, pid, scope, connections, holdTheOther }
  })

describe.skipIf(serverUrl === undefined)("kept connections (PostgreSQL)", () => {
  it.live("units one after another run on one backend, and a unit's list and count run there too, never on a second client", () =>
    Effect.gen(function*() {
      const { holdTheOther, pid, run, sql, statements } = yield* pooled(2)
      const first = yield* pid
      expect(yield* pid).toBe(first)
      // Run through `sql` instead, the list would wait for a pool client, and the pool has none left.
      yield* holdTheOther
      const [rows, listed, counted] = yield* run(databaseOperation(Effect.all([
        statements.rows(backendPid)([]),
        statements.statement(sql`select pg_backend_pid() as pid`),
        statements.count("select 1")([])
      ])))
      expect({ rows, listed, counted }).toEqual({ rows: [{ pid: first }], listed: [{ pid: first }], counted: 1 })
    }).pipe(Effect.scoped))

  it.live("a unit that opens a transaction gives its kept connection back first, and the transaction gets it", () =>
    Effect.gen(function*() {
      const { holdTheOther, pid, run, sql, statements } = yield* pooled(2)
      const kept = yield* pid
      yield* holdTheOther
      // The next unit is handed the kept client; its transaction needs a pool client, and the pool has only that one.
      const inTransaction = yield* run(databaseOperation(transaction(sql)(statements.rows(backendPid)([]))))
      expect(inTransaction).toEqual([{ pid: kept }])
      expect(yield* pid).toBe(kept)
    }).pipe(Effect.scoped))

  it.live("a unit whose statement failed gives its connection back, and its retry runs on a new one", () =>
    Effect.gen(function*() {
      const { pid } = yield* pooled(2)
      const first = yield* pid
      // The kept connection's backend ended between two units: the next unit's statement fails as a
      // lost connection, and is retried on a connection reserved anew.
      yield* onServer("select pg_terminate_backend($1)", [first])
      const after = yield* pid
      expect(after).not.toBe(first)
      expect(yield* pid).toBe(after)
    }).pipe(Effect.scoped))

  it.live("closing the client's layer closes the connections its units kept", () =>
    Effect.gen(function*() {
      const { connections, pid, scope } = yield* pooled(2)
      yield* pid
      expect(yield* connections).toBe(1)
      yield* Scope.close(scope, Exit.void)
      let left = yield* connections
      // The server sees a closed connection go once its backend has exited: no more than a few turns.
      for (let tries = 0; left > 0 && tries < 200; tries++) {
        yield* Effect.sleep("25 millis")
        left = yield* connections
      }
      expect(left).toBe(0)
    }).pipe(Effect.scoped))
})
