import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { LicenseId, type UserId } from "../domain/Ids.js"
import { License } from "../domain/License.js"
import type { PageQuery } from "../domain/Page.js"
import { keysetAfter, keysetPage } from "./records/KeysetPage.js"
import { createdAt, domainTable } from "./records/SqlTable.js"
import { InMemoryStore, inMemoryTable } from "./records/InMemoryStore.js"
import { preparedStatements } from "./records/Prepared.js"
import { findStored, getOrNotFound, insertOrReplay, outcomeUnknown } from "./records/Records.js"
import { databaseOperation, databaseRead } from "./database/Transient.js"

const page = keysetPage(License, (license) => license.id)

/** Its table (the benchmark's baselines send the same statements). */
export const licensesTable = domainTable("licenses", License, { start: "start_at", end: "end_at" })

export class Licenses extends Effect.Service<Licenses>()("Licenses", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* preparedStatements
    const selectOne = statements.rows(licensesTable.selectBy("id"))
    const insertOne = statements.count(licensesTable.insertUnlessPresent("id"))

    const find = findStored({ Result: License, execute: (id: LicenseId) => selectOne([id]) })
    const insert = (license: License) => insertOne(licensesTable.values(license))
    const getOne = getOrNotFound("license", find)

    /** Newest first, served by licenses_newest_first, or licenses_by_user_newest_first for one user. */
    const select = (query: PageQuery<UserId | undefined>) => (limit: number) =>
      statements.statement(sql`select ${sql.literal(licensesTable.selectList)}, ${sql.literal(createdAt)}
          from licenses
          where ${sql.and([...(query.filter === undefined ? [] : [sql`user_id = ${query.filter}`]), ...keysetAfter(sql, "id", query.after)])}
          order by created_at desc, id desc limit ${limit}`)

    return {
      create: (license: License) =>
        insertOrReplay("license", insert, find)(license).pipe(databaseOperation, outcomeUnknown("license", license.id)),
      get: (id: LicenseId) => databaseRead(getOne(id)),
      list: (query: PageQuery<UserId | undefined>) => page(query, select(query)).pipe(databaseRead)
    } as const
  })
}) {
  /** The same rules, kept in memory (no SQL): what the transport tests run on. */
  static readonly InMemory = Layer.effect(
    Licenses,
    Effect.map(InMemoryStore, (store) => Licenses.make(inMemoryTable<"licenses", UserId | undefined>(store, "licenses", "license", (license, userId) => license.userId === userId)))
  )
}
