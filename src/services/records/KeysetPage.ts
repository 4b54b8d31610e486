import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Predicate, Schema } from "effect"
import { type Page, pageOf, type PageQuery, Position } from "../../domain/Page.js"
import { storedRow } from "./StoredRow.js"

/**
 * A page of a list read as a keyset page (domain/Page.ts): the statement selects the list's rows
 * in list order (`order by created_at desc, <id> desc`), each with its creation time as
 * `"createdAt"` text, up to `limit` rows, after the condition `keysetAfter` writes. Each row is
 * read as `storedRow` reads it; a position that does not decode is a bug (a defect).
 */
export const keysetPage = <A, I>(Result: Schema.Schema<A, I>, idOf: (value: A) => string) => {
  const decodeValue = storedRow(Result)
  const decodePosition = Schema.decodeUnknownSync(Position)
  return <Filter extends string | undefined, R>(
    query: PageQuery<Filter>,
    select: (limit: number) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError, R>
  ): Effect.Effect<Page<A>, SqlError.SqlError, R> =>
    Effect.flatMap(select(query.size + 1), (rows) =>
      Effect.sync(() =>
        pageOf(
          rows.map((row) => {
            const value = decodeValue(row)
            const createdAt = Predicate.hasProperty(row, "createdAt") ? row.createdAt : undefined
            return { value, position: decodePosition({ createdAt, id: idOf(value) }) }
          }),
          query
        )
      ))
}

/**
 * The rows after `position` in list order: one row comparison, which the list's index
 * (`created_at desc, <id> desc`) answers as the start of its range scan. None for a first page.
 */
export const keysetAfter = (
  sql: SqlClient.SqlClient,
  idColumn: string,
  position: Position | undefined
): ReadonlyArray<Fragment> =>
  position === undefined
    ? []
    : [sql`(created_at, ${sql(idColumn)}) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`]
