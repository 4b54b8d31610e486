import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Duplex } from "node:stream"
import * as Pg from "pg"
import { embeddedConnections } from "../../src/services/embedded/EmbeddedConnection.js"
import { openEmbeddedDatabase } from "../../src/services/embedded/EmbeddedPostgres.js"

// The connection the processes' pool makes to their embedded database, with `pg` itself on it.

const database = openEmbeddedDatabase(undefined)

type Connect = () => Duplex

/** A `pg` client on `connect`'s connection, connected; its errors are the test's to read. */
const clientOn = async (connect: Connect) => {
  const client = new Pg.Client({ stream: connect, user: "postgres", database: "postgres" })
  client.on("error", () => {})
  await client.connect()
  return client
}

/** A client for the test's scope, ended with it. */
const connected = (connect: Connect) =>
  Effect.acquireRelease(Effect.promise(() => clientOn(connect)), (client) => Effect.promise(() => client.end().catch(() => undefined)))

/** The client's connection lost as a crashed caller's is: no Terminate, no ROLLBACK sent. */
const lose = (client: Pg.Client) => {
  const closed = new Promise((resolve) => client.once("end", resolve))
  ;(client as unknown as { connection: { stream: Duplex } }).connection.stream.destroy()
  return closed
}

const sqlState = (run: Promise<unknown>) => run.then(() => "none", (error: { code?: string }) => error.code ?? String(error))

describe("the embedded database's connection", () => {
  it.scoped("runs statements, simple and with parameters; a failed one answers its SQLSTATE and the connection goes on", () =>
    Effect.gen(function*() {
      const client = yield* connected(embeddedConnections(yield* database))
      const simple = yield* Effect.promise(() => client.query("select 1 as one"))
      expect(simple.rows).toEqual([{ one: 1 }])
      expect(yield* Effect.promise(() => sqlState(client.query("select * from no_such_table")))).toBe("42P01")
      const prepared = yield* Effect.promise(() => client.query({ name: "sum", text: "select $1::int + $2::int as total", values: [2, 3] }))
      expect(prepared.rows).toEqual([{ total: 5 }])
      const again = yield* Effect.promise(() => client.query({ name: "sum", text: "select $1::int + $2::int as total", values: [40, 2] }))
      expect(again.rows).toEqual([{ total: 42 }])
    }))

  it.scoped("answers many statements queued on it by a pool of one, each its own rows, and a reply larger than any buffer", () =>
    Effect.gen(function*() {
      const connect = embeddedConnections(yield* database)
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => new Pg.Pool({ stream: connect, user: "postgres", database: "postgres", max: 1 })),
        (pool) => Effect.promise(() => pool.end())
      )
      const answers = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 50 }, (_, i) => pool.query("select $1::int as n", [i]).then((r) => r.rows[0].n)))
      )
      expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => i))
      const large = yield* Effect.promise(() => pool.query("select repeat('x', 1000) as line from generate_series(1, 5000)"))
      expect(large.rows.length).toBe(5000)
      expect(large.rows.every((row: { line: string }) => row.line.length === 1000)).toBe(true)
    }))

  it.scoped("a connection lost inside a transaction leaves nothing of it, and the next one starts outside any", () =>
    Effect.gen(function*() {
      const connect = embeddedConnections(yield* database)
      const first = yield* Effect.promise(async () => {
        const client = await clientOn(connect)
        await client.query("create table kept (note text)")
        await client.query("begin")
        await client.query("insert into kept values ('never committed')")
        return client
      })
      yield* Effect.promise(() => lose(first))
      const next = yield* connected(connect)
      const rows = yield* Effect.promise(() => next.query("select count(*)::int as n from kept"))
      expect(rows.rows).toEqual([{ n: 0 }])
      // Outside a transaction: a write is committed by itself and seen by the next connection.
      yield* Effect.promise(() => next.query("insert into kept values ('committed')"))
      yield* Effect.promise(() => next.end())
      const third = yield* connected(connect)
      expect((yield* Effect.promise(() => third.query("select note from kept"))).rows).toEqual([{ note: "committed" }])
    }))

  it.scoped("a statement sent by a connection that is lost before PGlite ran it never runs", () =>
    Effect.gen(function*() {
      const connect = embeddedConnections(yield* database)
      const first = yield* Effect.promise(async () => {
        const client = await clientOn(connect)
        await client.query("create table sent (note text)")
        return client
      })
      // Written, then the connection lost in the same turn: PGlite has not run it yet.
      const unanswered = first.query("insert into sent values ('never answered')").then(() => "answered", () => "failed")
      yield* Effect.promise(() => lose(first))
      expect(yield* Effect.promise(() => unanswered)).toBe("failed")
      const next = yield* connected(connect)
      expect((yield* Effect.promise(() => next.query("select count(*)::int as n from sent"))).rows).toEqual([{ n: 0 }])
    }))

  it.scoped("a second connection while one is open is refused with one line; once the first closes, the next opens", () =>
    Effect.gen(function*() {
      const connect = embeddedConnections(yield* database)
      const first = yield* Effect.promise(() => clientOn(connect))
      const refused = yield* Effect.promise(() => clientOn(connect).then(() => "connected", (error: Error) => error.message))
      expect(refused).toBe("the embedded database has one connection, and it is open")
      expect((yield* Effect.promise(() => first.query("select 1 as one"))).rows).toEqual([{ one: 1 }])
      yield* Effect.promise(() => first.end())
      const third = yield* connected(connect)
      expect((yield* Effect.promise(() => third.query("select 2 as two"))).rows).toEqual([{ two: 2 }])
    }))
})
