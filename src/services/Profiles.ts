import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { ProfileId } from "../domain/Ids.js"
import { Profile } from "../domain/Profile.js"
import { InMemoryStore, inMemoryTable } from "./InMemoryStore.js"
import { findStored, getOrNotFound, insertOrReplay } from "./Records.js"
import { databaseOperation } from "./Transient.js"

export class Profiles extends Effect.Service<Profiles>()("Profiles", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const find = findStored({
      Request: ProfileId,
      Result: Profile,
      execute: (id) => sql`select id, full_name as "fullName", org_id as "orgId" from profiles where id = ${id}`
    })
    const insert = (profile: Profile) =>
      sql`insert into profiles (id, full_name, org_id)
          values (${profile.id}, ${profile.fullName}, ${profile.orgId})
          on conflict (id) do nothing returning id`

    return {
      create: (profile: Profile) => insertOrReplay("profile", insert, find)(profile).pipe(databaseOperation),
      get: (id: ProfileId) => getOrNotFound("profile", find)(id).pipe(databaseOperation)
    } as const
  })
}) {
  /** The same rules, kept in memory (no SQL): what the transport tests run on. */
  static readonly InMemory = Layer.effect(
    Profiles,
    Effect.map(InMemoryStore, (store) => Profiles.make(inMemoryTable(store, "profiles", "profile")))
  )
}
