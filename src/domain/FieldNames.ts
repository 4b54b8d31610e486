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

/** A field's path by its proto names (`profile.fullName` -> `profile.full_name`): how protobuf binary and gRPC name it. */
export const protoPath = (path: string): string => path.split(".").map(snakeCase).join(".")

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/**
 * A field's path (by its JSON names) as a JSON request `sent` spelled it: at each step the key the
 * request holds, its JSON name or, where only that is there, its proto name (`profile.full_name`).
 * The JSON name wins where both are, as the styles read them (contract §3.2).
 */
export const spelledIn = (sent: unknown) => (path: string): string => {
  if (path === "") return path
  let at: unknown = sent
  return path.split(".").map((step) => {
    const proto = snakeCase(step)
    const key = isObject(at) && !Object.hasOwn(at, step) && Object.hasOwn(at, proto) ? proto : step
    at = isObject(at) ? at[key] : undefined
    return key
  }).join(".")
}
