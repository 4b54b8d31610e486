import { Schema, SchemaAST } from "effect"

/** A domain class (`Schema.Class`): its fields, and its constructor, which can skip their checks. */
interface DomainClass<A> {
  readonly fields: Schema.Struct.Fields
  new(props: Record<string, unknown>, disableValidation: boolean): A
}

// A class's schema turns its fields' struct into a declaration of the class; a struct is a schema
// with fields too, and a function, but its instances are not made by `new`.
const isDomainClass = <A, I>(schema: Schema.Schema<A, I>): schema is Schema.Schema<A, I> & DomainClass<A> =>
  "fields" in schema && SchemaAST.isTransformation(schema.ast) && SchemaAST.isDeclaration(schema.ast.to)

/** A field that is its value as it stands: required, its key not renamed (a schema, or a declared property signature). */
const asItStands = (field: Schema.Struct.Field): boolean =>
  !Schema.isPropertySignature(field) || (field.ast._tag === "PropertySignatureDeclaration" && !field.ast.isOptional)

/**
 * The fields of a class whose row is its value as it stands, so that the row's columns (selected
 * under the field names, SqlTable.ts) are the constructor's arguments; otherwise undefined (an
 * optional field is SQL null in its row, not absent).
 */
const rowFields = (schema: DomainClass<unknown>): ReadonlyArray<string> | undefined => {
  const fields = Object.entries(schema.fields)
  return fields.every(([, field]) => asItStands(field)) ? fields.map(([name]) => name) : undefined
}

/**
 * How a row the services wrote is read back into its domain value.
 *
 * A row is only ever written from a value that passed the domain's rules (every write decodes its
 * payload with the domain schema first), into columns whose types and checks hold what a database
 * can hold (`uuid`, `timestamptz` read back as canonical UTC text, `end_at > start_at`). Checking
 * the rules again on every read costs more than the statement's own client work (a license's two
 * times parsed and written back; docs/benchmarks.md §5 has the figures), and can only find what
 * the write already found. So a domain class is constructed from its row's fields without its
 * checks; a value changed by hand in the database is read as it stands.
 * `test/services/stored-row.test.ts` reads each resource's rows both ways, on PGlite and
 * PostgreSQL, and fails when the values differ. Any other schema (a struct, a class with an
 * optional or renamed field) is decoded, and a row that does not decode is a bug (a defect).
 */
export const storedRow = <A, I>(Result: Schema.Schema<A, I>): ((row: unknown) => A) => {
  const fields = isDomainClass(Result) ? rowFields(Result) : undefined
  if (fields === undefined || !isDomainClass(Result)) return Schema.decodeUnknownSync(Result)
  return (row) => {
    const props: Record<string, unknown> = {}
    for (const field of fields) props[field] = (row as Record<string, unknown>)[field]
    return new Result(props, true)
  }
}
