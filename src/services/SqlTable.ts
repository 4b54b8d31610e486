import { utcText } from "./SqlText.js"

/** A column: its name in SQL; a timestamptz is read as UTC text and written from RFC 3339 text. */
export type Column = string | { readonly column: string; readonly timestamp: true }

/**
 * A table's columns, written once: each domain field beside its column, in one order. The row as
 * the domain reads it (`selectList`), the insert's column list, its placeholders and its
 * parameters all come from this, so a field cannot be selected and not inserted, or bound in
 * another position than its column.
 */
export const sqlTable = <const Fields extends Readonly<Record<string, Column>>>(table: string, fields: Fields) => {
  const columns = Object.entries(fields).map(([field, column]) =>
    typeof column === "string" ? { field, column, timestamp: false } : { field, column: column.column, timestamp: true }
  )
  return {
    /** `id, full_name as "fullName", …`: the row under the domain's field names. */
    selectList: columns.map(({ column, field, timestamp }) => {
      const read = timestamp ? utcText(column) : column
      return read === field ? field : `${read} as "${field}"`
    }).join(", "),
    /** `insert into <table> (…) values ($1, …) on conflict (<key>) do nothing`: answers the rows it wrote. */
    insertUnlessPresent: (key: string) =>
      `insert into ${table} (${columns.map(({ column }) => column).join(", ")}) values (${
        columns.map(({ timestamp }, i) => `$${i + 1}${timestamp ? "::timestamptz" : ""}`).join(", ")
      }) on conflict (${key}) do nothing`,
    /** The insert's parameters, from a value with the domain's fields; an absent optional field is SQL null. */
    values: (value: { readonly [Field in keyof Fields]?: unknown }): ReadonlyArray<unknown> =>
      columns.map(({ field }) => value[field as keyof Fields] ?? null)
  } as const
}

/** Every table's creation time, as list rows carry it (their position in the list). */
export const createdAt = `${utcText("created_at")} as "createdAt"`
