import { Context, Effect, Equal, HashMap, Layer, Option, Ref } from "effect"
import { AlreadyExists, NotFound } from "../domain/Errors.js"
import type { License } from "../domain/License.js"
import type { OnboardingRun } from "../domain/Onboarding.js"
import type { Org } from "../domain/Org.js"
import type { Profile } from "../domain/Profile.js"

/** A run as the workflow keeps it: the record, and the fingerprint of the request that made it. */
export interface StoredRun {
  readonly run: OnboardingRun
  readonly fingerprint: string
}

/** What the in-memory layers hold: the four tables of the database, as immutable maps. */
export interface Tables {
  readonly orgs: HashMap.HashMap<string, Org>
  readonly profiles: HashMap.HashMap<string, Profile>
  readonly licenses: HashMap.HashMap<string, License>
  readonly runs: HashMap.HashMap<string, StoredRun>
}

/**
 * The in-memory stand-in for the database, shared by the in-memory layers of Orgs, Profiles,
 * Licenses and Onboarding (as the SQL layers share one database). Every change is one atomic
 * update of the whole state, which is what gives the workflow its all-or-nothing: its four rows
 * land in one update or not at all, and a concurrent duplicate sees the finished run.
 */
export class InMemoryStore extends Context.Tag("InMemoryStore")<InMemoryStore, Ref.Ref<Tables>>() {
  static readonly layer = Layer.effect(
    InMemoryStore,
    Ref.make<Tables>({ orgs: HashMap.empty(), profiles: HashMap.empty(), licenses: HashMap.empty(), runs: HashMap.empty() })
  )
}

/** The tables of records created under the caller's id, and the record each holds. */
interface Records {
  readonly orgs: Org
  readonly profiles: Profile
  readonly licenses: License
}

/**
 * Create and get over one table, with the create semantics of the SQL layers (Records.ts): the
 * caller's id is the key; the same content again answers with the stored record; other content
 * under that id is AlreadyExists; nothing is overwritten.
 */
export const inMemoryTable = <T extends keyof Records>(store: Ref.Ref<Tables>, table: T, resource: string) => ({
  create: (value: Records[T]): Effect.Effect<Records[T], AlreadyExists> =>
    Effect.flatten(Ref.modify(store, (tables) => {
      const rows = tables[table] as HashMap.HashMap<string, Records[T]>
      const stored = HashMap.get(rows, value.id)
      if (Option.isNone(stored)) {
        return [Effect.succeed(value), { ...tables, [table]: HashMap.set(rows, value.id, value) }] as const
      }
      return [
        Equal.equals(stored.value, value)
          ? Effect.succeed(stored.value)
          : Effect.fail(new AlreadyExists({ resource, id: value.id })),
        tables
      ] as const
    })),
  get: (id: string): Effect.Effect<Records[T], NotFound> =>
    Effect.flatMap(Ref.get(store), (tables) =>
      Option.match(HashMap.get(tables[table] as HashMap.HashMap<string, Records[T]>, id), {
        onNone: () => Effect.fail(new NotFound({ resource, id })),
        onSome: Effect.succeed
      }))
})
