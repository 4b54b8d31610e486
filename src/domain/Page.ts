import { Option, ParseResult, Schema } from "effect"
import { Uuid } from "./Ids.js"
import { Timestamp, toMicros } from "./Timestamp.js"

/**
 * AIP-158 paging, the same for every list (contract §7): `pageSize` 0 or absent means 20, at
 * most 100; newest first; `nextPageToken` empty on the last page. Pages are keyset pages on
 * (created at, id), both descending: a row that existed when the listing began is never skipped
 * or repeated, however many rows are inserted meanwhile (an offset would shift under them).
 */

export const defaultPageSize = 20
export const maxPageSize = 100

export const PageSize = Schema.Int.pipe(
  Schema.filter((size) => size >= 0 && size <= maxPageSize, {
    message: () => `must be between 1 and ${maxPageSize} (0 or absent means ${defaultPageSize})`,
    // The same bounds, for documents (OpenAPI's `pageSize` parameter); the filter above is the rule.
    jsonSchema: { minimum: 0, maximum: maxPageSize }
  })
)

/** Where a page ended: the last row's creation time and id. The next page starts after it. */
export const Position = Schema.Struct({ createdAt: Timestamp, id: Uuid })
export type Position = typeof Position.Type

/** What a page token stands for: the list and filter it was made for, and the position to go on from. */
const Cursor = Schema.Struct({ list: Schema.String, filter: Schema.String, after: Position })
type Cursor = typeof Cursor.Type

const cursorFromText = Schema.compose(Schema.StringFromBase64Url, Schema.parseJson(Cursor))
const readCursor = Schema.decodeUnknownOption(cursorFromText)
const writeCursor = Schema.encodeSync(cursorFromText)

const malformedToken = "must be a nextPageToken from an earlier answer of this list"

/**
 * The token as the caller holds it: opaque text (base64url of JSON). Its position is not a secret:
 * a caller who forges one only starts a listing somewhere else, which a filter or a size allows too.
 */
export const PageToken = Schema.transformOrFail(Schema.String, Schema.typeSchema(Cursor), {
  strict: true,
  decode: (text, _, ast) =>
    Option.match(readCursor(text), {
      onNone: () => ParseResult.fail(new ParseResult.Type(ast, text, malformedToken)),
      onSome: ParseResult.succeed
    }),
  encode: (cursor) => ParseResult.succeed(writeCursor(cursor))
})

/**
 * An optional value where proto3 cannot tell empty from absent and JSON and GraphQL send `null`
 * for "not given": `0`, `""` and `null` all mean "not given" (see OnboardingRequest for why
 * these are values the field may hold rather than a decoding step).
 */
const notGiven = <S extends Schema.Schema.Any, E extends string | number>(schema: S, empty: E) =>
  Schema.optionalWith(Schema.Union(schema, Schema.Literal(empty), Schema.Null), { exact: true })

/** An optional list filter (`orgId`, `status`): absent, `""` or `null` lists everything. */
export const optionalFilter = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  notGiven(schema, "").annotations({ description })

const pageFields = {
  pageSize: Schema.optionalWith(Schema.NullOr(PageSize), { exact: true }).annotations({
    description: `rows per page: 1 to ${maxPageSize}; 0 or absent means ${defaultPageSize}`
  }),
  pageToken: notGiven(PageToken, "").annotations({
    description: "the nextPageToken of the previous page; absent or empty for the first page"
  })
}

/** A page's link to the next: what a list answers beside its rows. */
export const nextPageToken = Schema.propertySignature(Schema.String).annotations({
  description: "the pageToken of the next page; empty on the last page"
})

/**
 * A list's request: the page fields and the list's filter fields. A token is bound to the list and
 * the filter it was made for: used with another, it would page through rows it never saw.
 * (`filterOf` reads the filter as the token records it: `""` for none.)
 */
export const listRequest = <const List extends string, Fields extends Schema.Struct.Fields>(
  list: List,
  filter: Fields,
  filterOf: (request: Schema.Struct.Type<Fields>) => string
) =>
  Schema.Struct({ ...pageFields, ...filter }).pipe(
    Schema.filter((request) => {
      const { pageToken: token }: { readonly pageToken?: Cursor | "" | null } = request
      if (typeof token !== "object" || token === null) return true
      if (token.list !== list) return { path: ["pageToken"], message: `was made for another list, not ${list}` }
      return token.filter === filterOf(request as Schema.Struct.Type<Fields>) ||
        { path: ["pageToken"], message: "was made for another filter: list again from the first page" }
    })
  )

/**
 * One page asked of a service: how many rows, after which position, under which filter (a string
 * value, or undefined for all rows), and how to write the token of the page after a position.
 */
export interface PageQuery<Filter extends string | undefined> {
  readonly size: number
  readonly after: Position | undefined
  readonly filter: Filter
  readonly tokenAfter: (position: Position) => string
}

/** A row with the position it holds in its list. */
export interface Positioned<A> {
  readonly value: A
  readonly position: Position
}

/** One page as every style answers it: the rows, and the token of the next page ("" on the last). */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextPageToken: string
}

/** What a decoded request of list `list` asks for, as a service query. */
export const pageQuery = <Filter extends string | undefined>(
  list: string,
  request: { readonly pageSize?: number | null | undefined; readonly pageToken?: Cursor | "" | null | undefined },
  filter: Filter
): PageQuery<Filter> => ({
  size: request.pageSize || defaultPageSize,
  after: typeof request.pageToken === "object" && request.pageToken !== null ? request.pageToken.after : undefined,
  filter,
  tokenAfter: (after) => writeCursor({ list, filter: filter ?? "", after })
})

/**
 * A page from up to `size + 1` rows in list order: the extra row only says that there is more,
 * so the last page is known without a second query (and without a token that leads nowhere).
 */
export const pageOf = <A>(rows: ReadonlyArray<Positioned<A>>, query: PageQuery<string | undefined>): Page<A> => {
  const items = rows.slice(0, query.size)
  const last = items.at(-1)
  return {
    items: items.map((row) => row.value),
    nextPageToken: rows.length > query.size && last !== undefined ? query.tokenAfter(last.position) : ""
  }
}

/** List order, newest first: negative when `a` comes before `b`. Ids break ties (lowercase UUIDs sort as PostgreSQL's uuid). */
export const newestFirst = (a: Position, b: Position): number => {
  const [ta, tb] = [toMicros(a.createdAt), toMicros(b.createdAt)]
  return ta !== tb ? (ta > tb ? -1 : 1) : a.id === b.id ? 0 : a.id > b.id ? -1 : 1
}
