import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { type OrgId, ProfileId } from "../domain/Ids.js"
import type { PageQuery } from "../domain/Page.js"
import { Profile } from "../domain/Profile.js"
import { InMemoryStore, inMemoryTable } from "./records/InMemoryStore.js"
import { keysetAfter, keysetPage } from "./records/KeysetPage.js"
import { preparedStatements } from "./records/Prepared.js"
import { findStored, getOrNotFound, insertOrReplay, outcomeUnknown } from "./records/Records.js"
import { createdAt, domainTable } from "./records/SqlTable.js"
import { databaseOperation, databaseRead } from "./database/Transient.js"

const page = keysetPage(Profile, (profile) => profile.id)

/** Its table (the benchmark's baselines send the same statements). */
export const profilesTable = domainTable("profiles", Profile)

export class Profiles extends Effect.Service<Profiles>()("Profiles", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* preparedStatements
    const selectOne = statements.rows(profilesTable.selectBy("id"))
    const insertOne = statements.count(profilesTable.insertUnlessPresent("id"))

    const find = findStored({ Result: Profile, execute: (id: ProfileId) => selectOne([id]) })
    const insert = (profile: Profile) => insertOne(profilesTable.values(profile))
    const getOne = getOrNotFound("profile", find)

    /** Newest first, served by profiles_newest_first, or profiles_by_org_newest_first for one org. */
    const select = (query: PageQuery<OrgId | undefined>) => (limit: number) =>
      statements.statement(sql`select ${sql.literal(profilesTable.selectList)}, ${sql.literal(createdAt)}
          from profiles
          where ${sql.and([...(query.filter === undefined ? [] : [sql`org_id = ${query.filter}`]), ...keysetAfter(sql, "id", query.after)])}
          order by created_at desc, id desc limit ${limit}`)

    return {
      create: (profile: Profile) =>
        insertOrReplay("profile", insert, find)(profile).pipe(databaseOperation, outcomeUnknown("profile", profile.id)),
      get: (id: ProfileId) => databaseRead(getOne(id)),
      list: (query: PageQuery<OrgId | undefined>) => page(query, select(query)).pipe(databaseRead)
    } as const
  })
}) {
  /** The same rules, kept in memory (no SQL): what the transport tests run on. */
  static readonly InMemory = Layer.effect(
    Profiles,
    Effect.map(InMemoryStore, (store) => Profiles.make(inMemoryTable<"profiles", OrgId | undefined>(store, "profiles", "profile", (profile, orgId) => profile.orgId === orgId)))
  )
}
