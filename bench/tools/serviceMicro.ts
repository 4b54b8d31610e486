/**
 * One read, 64 at a time, in-process, at each layer of the service stack: the `pg` pool alone;
 * `pg` inside an Effect; the @effect/sql statement (with and without a tracer); the statement
 * under `databaseOperation` (retry and budget); `Orgs.get` (row decoding, NotFound); then a create:
 * the `pg` insert, the @effect/sql insert, `Orgs.create`. Prints
 * operations/s and CPU microseconds per operation, to show what each layer adds.
 * Usage: DATABASE_URL=... node dist/bench/bench/tools/serviceMicro.js [operations]
 * (the database needs the schema: point it at a database a service has started on.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { OrgId } from "../../src/domain/Ids.js"
import { Org } from "../../src/domain/Org.js"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Orgs } from "../../src/services/Orgs.js"
import { databaseOperation } from "../../src/services/database/Transient.js"

const url = process.env["DATABASE_URL"] ?? ""
const operations = Number(process.argv[2] ?? 20_000)
const concurrency = 64
const id = OrgId.make(randomUUID())
const text = "select id, name from orgs where id = $1"

const runtime = ManagedRuntime.make(
  // The pool the services use; the schema must be there already (no migrations here).
  Orgs.Default.pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 10 })))
)
const orgs = await runtime.runPromise(Orgs)
const sql = await runtime.runPromise(SqlClient.SqlClient)
await runtime.runPromise(orgs.create(new Org({ id, name: "Micro" })))
const pool = new pg.Pool({ connectionString: url, max: 10 })
const insertText = "insert into orgs (id, name) values ($1, $2) on conflict (id) do nothing returning id"
const insert = () => sql`insert into orgs (id, name) values (${randomUUID()}, ${"Micro"}) on conflict (id) do nothing returning id`
const statement = () => sql`select id, name from orgs where id = ${id}`

const layers: ReadonlyArray<[string, () => Promise<unknown>]> = [
  ["pg pool", () => pool.query(text, [id])],
  ["pg in an Effect", () => runtime.runPromise(Effect.promise(() => pool.query(text, [id])))],
  ["@effect/sql statement, traced", () => runtime.runPromise(statement())],
  ["@effect/sql statement", () => runtime.runPromise(Effect.withTracerEnabled(statement(), false))],
  ["databaseOperation(statement)", () => runtime.runPromise(Effect.withTracerEnabled(databaseOperation(statement()), false))],
  ["Orgs.get", () => runtime.runPromise(Effect.withTracerEnabled(orgs.get(id), false))],
  ["pg pool, insert", () => pool.query(insertText, [randomUUID(), "Micro"])],
  ["@effect/sql insert", () => runtime.runPromise(Effect.withTracerEnabled(insert(), false))],
  ["Orgs.create", () => runtime.runPromise(Effect.withTracerEnabled(orgs.create(new Org({ id: OrgId.make(randomUUID()), name: "Micro" })), false))]
]

const measure = async (call: () => Promise<unknown>) => {
  let left = operations
  const began = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (left-- > 0) await call()
  }))
  const used = process.cpuUsage(cpu)
  return { perSecond: operations / ((performance.now() - began) / 1000), cpuMicros: (used.user + used.system) / operations }
}

for (const [name, call] of layers) {
  await measure(call) // warm-up
  const { cpuMicros, perSecond } = await measure(call)
  console.log(`${name.padEnd(32)} ${perSecond.toFixed(0).padStart(7)} ops/s ${cpuMicros.toFixed(0).padStart(5)} us CPU/op`)
}
await runtime.dispose()
await pool.end()
