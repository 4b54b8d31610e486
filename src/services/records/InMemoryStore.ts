import { Clock, Context, Effect, Equal, Exit, FiberRef, HashMap, Layer, Option, Ref } from "effect"
import { AlreadyExists, NotFound } from "../../domain/Errors.js"
import type { License } from "../../domain/License.js"
import type { OnboardingRun } from "../../domain/Onboarding.js"
import type { Org } from "../../domain/Org.js"
import { newestFirst, type Page, pageOf, type PageQuery, type Positioned } from "../../domain/Page.js"
import type { Profile } from "../../domain/Profile.js"
import { fromMicros, type Timestamp } from "../../domain/Timestamp.js"

/** A run as the workflow keeps it: the record, and the fingerprint of the request that made it. */
export interface StoredRun {
  readonly run: OnboardingRun
  readonly fingerprint: string
}

/**
 * What the in-memory layers hold: the four tables of the database, as immutable maps; each record
 * with its position in its list (its creation time, as the SQL tables' `created_at`, and its id).
 */
export interface Tables {
  readonly orgs: HashMap.HashMap<string, Positioned<Org>>
  readonly profiles: HashMap.HashMap<string, Positioned<Profile>>
  readonly licenses: HashMap.HashMap<string, Positioned<License>>
  readonly runs: HashMap.HashMap<string, StoredRun>
  /**
   * The last creation time handed out, in microseconds: each one is later than the one before,
   * so records created within one millisecond still list newest first, as in the database.
   */
  readonly clock: bigint
}

/** The creation time of a record created now (`nowMillis`), and the tables with their clock moved on. */
export const creationTime = (tables: Tables, nowMillis: number): readonly [Timestamp, Tables] => {
  const now = BigInt(nowMillis) * 1000n
  const micros = now > tables.clock ? now : tables.clock + 1n
  return [fromMicros(micros), { ...tables, clock: micros }]
}

/** One page of `rows`, those that `matches`, newest first: what the SQL layers' keyset pages answer. */
export const inMemoryPage = <A, Filter extends string | undefined>(
  rows: Iterable<Positioned<A>>,
  query: PageQuery<Filter>,
  matches: (value: A, filter: NonNullable<Filter>) => boolean
): Page<A> => {
  const { after, filter } = query
  const listed = [...rows]
    .filter((row) =>
      (filter === undefined || matches(row.value, filter)) &&
      (after === undefined || newestFirst(after, row.position) < 0)
    )
    .sort((a, b) => newestFirst(a.position, b.position))
  return pageOf(listed.slice(0, query.size + 1), query)
}

/**
 * The in-memory stand-in for the database, shared by the in-memory layers of Orgs, Profiles,
 * Licenses and WorkflowRuns (as the SQL layers share one database). Every change is one atomic
 * update of the whole state; the workflow's four rows land in one update or not at all
 * (`atomically`), and a concurrent duplicate sees the finished run.
 */
export class InMemoryStore extends Context.Tag("InMemoryStore")<InMemoryStore, Ref.Ref<Tables>>() {
  static readonly layer = Layer.effect(
    InMemoryStore,
    Ref.make<Tables>({
      orgs: HashMap.empty(),
      profiles: HashMap.empty(),
      licenses: HashMap.empty(),
      runs: HashMap.empty(),
      clock: 0n
    })
  )
}

/** A unit of work's own copy of a store's tables, while `atomically` runs it. */
interface Stage {
  readonly store: Ref.Ref<Tables>
  readonly staged: Ref.Ref<Tables>
}

const currentStage = FiberRef.unsafeMake<Stage | undefined>(undefined)

/** The tables the caller sees: its unit of work's copy inside `atomically`, else the store's. */
const tablesOf = (store: Ref.Ref<Tables>): Effect.Effect<Ref.Ref<Tables>> =>
  Effect.map(FiberRef.get(currentStage), (stage) => (stage?.store === store ? stage.staged : store))

export const readTables = (store: Ref.Ref<Tables>): Effect.Effect<Tables> => Effect.flatMap(tablesOf(store), Ref.get)

/** One atomic change of the tables the caller sees (see `tablesOf`), answering `f`'s first part. */
export const modifyTables = <A>(store: Ref.Ref<Tables>, f: (tables: Tables) => readonly [A, Tables]): Effect.Effect<A> =>
  Effect.flatMap(tablesOf(store), (tables) => Ref.modify(tables, f))

const tableNames = ["orgs", "profiles", "licenses", "runs"] as const

/**
 * `now` with the keys that `unit` added (those of `after` missing from `before`), or undefined
 * when another writer added one of them meanwhile. Records are only ever added, never changed.
 */
const applied = (before: Tables, after: Tables, now: Tables): Tables | undefined => {
  const table = (tables: Tables, name: typeof tableNames[number]): HashMap.HashMap<string, unknown> => tables[name]
  let merged: Tables = { ...now, clock: now.clock > after.clock ? now.clock : after.clock }
  for (const name of tableNames) {
    const added = HashMap.filter(table(after, name), (_, key) => !HashMap.has(table(before, name), key))
    if (HashMap.some(added, (_, key) => HashMap.has(table(now, name), key))) return undefined
    merged = { ...merged, [name]: HashMap.union(table(now, name), added) }
  }
  return merged
}

/**
 * `unit` all or nothing, as a database transaction runs it: its writes go to a copy of the tables
 * and land in the store in one update when it succeeds, or not at all. When a concurrent writer
 * added one of the same keys first (a duplicate workflow id), `unit` runs again on the new tables
 * and finds that writer's record, as a SQL transaction blocked on the same key does.
 */
export const atomically = (store: Ref.Ref<Tables>) => <A, E, R>(unit: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    while (true) {
      const before = yield* Ref.get(store)
      const staged = yield* Ref.make(before)
      const exit = yield* Effect.exit(Effect.locally(unit, currentStage, { store, staged }))
      if (Exit.isFailure(exit)) return yield* exit
      const after = yield* Ref.get(staged)
      const landed = yield* Ref.modify(store, (now) => {
        const merged = applied(before, after, now)
        return merged === undefined ? [false, now] as const : [true, merged] as const
      })
      if (landed) return exit.value
    }
  })

/** The tables of records created under the caller's id, and the record each holds. */
interface Records {
  readonly orgs: Org
  readonly profiles: Profile
  readonly licenses: License
}

/** The tables of `Records`, as `Tables` holds them: a mapped type, so that one indexed by a generic key is still a table of its record. */
type RecordTables = { readonly [T in keyof Records]: HashMap.HashMap<string, Positioned<Records[T]>> }
const recordTables = (tables: Tables): RecordTables => tables

/**
 * Create, get and list over one table, with the create semantics of the SQL layers (Records.ts):
 * the caller's id is the key; the same content again answers with the stored record; other
 * content under that id is AlreadyExists; nothing is overwritten. `matches` is the list's filter.
 */
export const inMemoryTable = <T extends keyof Records, Filter extends string | undefined>(
  store: Ref.Ref<Tables>,
  table: T,
  resource: string,
  matches: (value: Records[T], filter: NonNullable<Filter>) => boolean
) => {
  const rowsOf = (tables: Tables): HashMap.HashMap<string, Positioned<Records[T]>> => recordTables(tables)[table]
  return {
    create: (value: Records[T]): Effect.Effect<Records[T], AlreadyExists> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatten(modifyTables(store, (tables) => {
          const stored = HashMap.get(rowsOf(tables), value.id)
          if (Option.isNone(stored)) {
            const [createdAt, later] = creationTime(tables, now)
            const row = { value, position: { createdAt, id: value.id } }
            return [Effect.succeed(value), { ...later, [table]: HashMap.set(rowsOf(tables), value.id, row) }] as const
          }
          return [
            Equal.equals(stored.value.value, value)
              ? Effect.succeed(stored.value.value)
              : Effect.fail(new AlreadyExists({ resource, id: value.id })),
            tables
          ] as const
        }))),
    get: (id: string): Effect.Effect<Records[T], NotFound> =>
      Effect.flatMap(readTables(store), (tables) =>
        Option.match(HashMap.get(rowsOf(tables), id), {
          onNone: () => Effect.fail(new NotFound({ resource, id })),
          onSome: (row) => Effect.succeed(row.value)
        })),
    list: (query: PageQuery<Filter>): Effect.Effect<Page<Records[T]>> =>
      Effect.map(readTables(store), (tables) => inMemoryPage(HashMap.values(rowsOf(tables)), query, matches))
  }
}
