import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { OrgId } from "../domain/Ids.js"
import { Org } from "../domain/Org.js"
import type { PageQuery } from "../domain/Page.js"
import { InMemoryStore, inMemoryTable } from "./records/InMemoryStore.js"
import { keysetAfter, keysetPage } from "./records/KeysetPage.js"
import { preparedStatements } from "./records/Prepared.js"
import { findStored, getOrNotFound, insertOrReplay, outcomeUnknown } from "./records/Records.js"
import { createdAt, domainTable } from "./records/SqlTable.js"
import { databaseOperation, databaseRead } from "./database/Transient.js"

const page = keysetPage(Org, (org) => org.id)

/** Its table (the benchmark's baselines send the same statements). */
export const orgsTable = domainTable("orgs", Org)

export class Orgs extends Effect.Service<Orgs>()("Orgs", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* preparedStatements
    const selectOne = statements.rows(orgsTable.selectBy("id"))
    const insertOne = statements.count(orgsTable.insertUnlessPresent("id"))

    const find = findStored({ Result: Org, execute: (id: OrgId) => selectOne([id]) })
    const insert = (org: Org) => insertOne(orgsTable.values(org))
    const getOne = getOrNotFound("org", find)

    /** Newest first, served by the index orgs_newest_first. */
    const select = (query: PageQuery<undefined>) => (limit: number) =>
      statements.statement(sql`select ${sql.literal(orgsTable.selectList)}, ${sql.literal(createdAt)} from orgs
          where ${sql.and(keysetAfter(sql, "id", query.after))}
          order by created_at desc, id desc limit ${limit}`)

    return {
      create: (org: Org) =>
        insertOrReplay("org", insert, find)(org).pipe(databaseOperation, outcomeUnknown("org", org.id)),
      get: (id: OrgId) => databaseRead(getOne(id)),
      list: (query: PageQuery<undefined>) => page(query, select(query)).pipe(databaseRead)
    } as const
  })
}) {
  /** The same rules, kept in memory (no SQL): what the transport tests run on. */
  static readonly InMemory = Layer.effect(
    Orgs,
    Effect.map(InMemoryStore, (store) => Orgs.make(inMemoryTable<"orgs", undefined>(store, "orgs", "org", () => true)))
  )
}
