import { Option, Schema, SchemaAST } from "effect"
import { snakeCase } from "../../domain/FieldNames.js"
import { CanonicalTimestamp } from "../../domain/Timestamp.js"

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
  const selectList = columns.map(({ column, field, timestamp }) => {
    const read = timestamp ? utcText(column) : column
    return read === field ? field : `${read} as "${field}"`
  }).join(", ")
  return {
    /** `id, full_name as "fullName", …`: the row under the domain's field names. */
    selectList,
    /** `select <selectList> from <table> where <key> = $1`: one row by its key. */
    selectBy: (key: string) => `select ${selectList} from ${table} where ${key} = $1`,
    /** `insert into <table> (…) values ($1, …) on conflict (<key>) do nothing`: answers the rows it wrote. */
    insertUnlessPresent: (key: string) =>
      `insert into ${table} (${columns.map(({ column }) => column).join(", ")}) values (${
        columns.map(({ timestamp }, i) => `$${i + 1}${timestamp ? "::timestamptz" : ""}`).join(", ")
      }) on conflict (${key}) do nothing`,
    /** The insert's parameters, from a value with the domain's fields; an absent optional field is SQL null. */
    values: (value: { readonly [Field in keyof Fields]?: unknown }): ReadonlyArray<unknown> =>
      columns.map(({ field }) => value[field] ?? null)
  } as const
}

const sqlName = /^[a-z][a-z0-9_]*$/

/** A field's value as the domain holds it, through an optional field's `| undefined`. */
const fieldType = (field: Schema.Struct.Field): SchemaAST.AST => {
  if (!Schema.isPropertySignature(field)) return SchemaAST.typeAST(field.ast)
  const ast = field.ast
  return SchemaAST.typeAST(ast._tag === "PropertySignatureDeclaration" ? ast.type : ast.to.type)
}

/**
 * CanonicalTimestamp, by its brand: a field's examples on its type (Described.ts) make the type
 * side an annotated copy of it.
 */
const timestampBrands = Option.getOrElse(SchemaAST.getBrandAnnotation(CanonicalTimestamp.ast), () => [])
const isCanonicalTimestamp = (ast: SchemaAST.AST) =>
  ast === CanonicalTimestamp.ast || Option.exists(SchemaAST.getBrandAnnotation(ast), (brands) => timestampBrands.length > 0 && timestampBrands.every((brand) => brands.includes(brand)))

const isTimestamp = (field: Schema.Struct.Field): boolean => {
  const type = fieldType(field)
  const members = SchemaAST.isUnion(type) ? type.types : [type]
  return members.some(isCanonicalTimestamp)
}

/**
 * A domain class's table: a column per field, named as the field in snake_case unless `renamed`
 * says otherwise, a timestamp wherever the domain's field is one. A field added to the class is a
 * column here with nothing else written; the migration adds it to the table.
 */
export const domainTable = <
  const Fields extends Schema.Struct.Fields,
  const Renamed extends { readonly [Field in keyof Fields]?: string } = {}
>(table: string, domain: { readonly fields: Fields }, renamed?: Renamed) => {
  const columns = Object.fromEntries(Object.entries(domain.fields).map(([field, schema]) => {
    const column = renamed?.[field] ?? snakeCase(field)
    if (!sqlName.test(column)) throw new Error(`${table}.${field}: "${column}" is not a plain SQL column name`)
    return [field, isTimestamp(schema) ? { column, timestamp: true as const } : column]
  })) as { readonly [Field in keyof Fields]: Column }
  return sqlTable(table, columns)
}

/**
 * A timestamptz column read as the domain's canonical text (CanonicalTimestamp: UTC, `Z`, the
 * fraction only when it is not zero, at most six digits, no trailing zeros), so no precision is
 * lost to JavaScript's millisecond Date, the session time zone does not matter, and a row read
 * back is already the value its decode would give (StoredRow.ts).
 */
export const utcText = (column: string): string =>
  `rtrim(rtrim(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`

/** Every table's creation time, as list rows carry it (their position in the list). */
export const createdAt = `${utcText("created_at")} as "createdAt"`
