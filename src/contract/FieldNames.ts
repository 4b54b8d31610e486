/**
 * A field's two names in JSON (contract §3.2): the lowerCamel JSON name the domain's schemas use
 * (`fullName`) and its snake_case proto name (`full_name`), which requests may use instead.
 */

/** The snake_case proto name of a lowerCamel JSON name (`pageSize` -> `page_size`). */
export const protoName = <S extends string>(json: S) => json.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) as ProtoName<S>

/** `protoName` as a type: the typed client's parameter names. */
export type ProtoName<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${ProtoName<Tail>}`
  : S
