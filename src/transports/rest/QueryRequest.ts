import { Effect } from "effect"
import { InvalidArgument } from "../../domain/Errors.js"

export type QueryParameters = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

const integer = /^[+-]?\d+$/

/**
 * A list's query parameters, read by their JSON names (`jsonNamed`), as its request, the way a
 * JSON body would carry it: `pageSize` a number when it is written as one (query text is always a
 * string; anything else is passed on for the domain to refuse); an empty value not given. A
 * parameter given twice is refused: which one was meant is unknown.
 */
export const queryRequest = (parameters: QueryParameters): Effect.Effect<Record<string, unknown>, InvalidArgument> => {
  const request: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(parameters)) {
    if (value === undefined || value === "") continue
    if (typeof value !== "string") return Effect.fail(InvalidArgument.field(name, "must be given once"))
    request[name] = name === "pageSize" && integer.test(value) ? Number(value) : value
  }
  return Effect.succeed(request)
}
