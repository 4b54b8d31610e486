/**
 * A field's snake_case name, from the lowerCamel name the domain's schemas use (`fullName` ->
 * `full_name`): its proto name, which JSON requests may use instead (contract §3.2), and its
 * column's name in SQL.
 */
export const snakeCase = <S extends string>(json: S) => json.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) as SnakeCase<S>

/** `snakeCase` as a type: the typed client's parameter names. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S
