import type { ServiceUrls } from "../StyleClient.js"
import type { CatalogOperation } from "./Catalog.js"

/** How a call ended, as a caller of any style can tell: the reply (as JSON), or the refusal's gRPC code name and message. */
export type Answer =
  | { readonly ok: true; readonly reply: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string }

/** One style's client, pointed at the four ports: any operation of the tables, called with its payload in the wire (JSON) shape. */
export interface CellClient {
  readonly call: (operation: CatalogOperation, payload: unknown) => Promise<Answer>
  readonly close: () => void
}

/** A cell of the table: one style over one HTTP version, with a client of its own. */
export interface Cell {
  readonly style: string
  readonly protocol: "HTTP/1.1" | "HTTP/2"
  readonly make: (urls: ServiceUrls) => CellClient
}

export const cellName = (cell: Cell) => `${cell.style}, ${cell.protocol}`

/** gRPC's code names (lower snake, as Connect writes them), by number. */
const codeNames = [
  "ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found", "already_exists", "permission_denied",
  "resource_exhausted", "failed_precondition", "aborted", "out_of_range", "unimplemented", "internal", "unavailable",
  "data_loss", "unauthenticated"
] as const

export const codeNameOf = (code: number): string => codeNames[code] ?? `code ${code}`

/** `InvalidArgument` or `INVALID_ARGUMENT` -> `invalid_argument`. */
export const snakeName = (name: string): string =>
  (name.includes("_") ? name : name.replace(/(?<=[a-z])(?=[A-Z])/g, "_")).toLowerCase()

/**
 * A reply as the table compares it: a Get's or Create's record nests under one field in the
 * protobuf, REST and GraphQL replies (`{org: {...}}`), as the @effect/rpc reply does not.
 */
export const unwrapped = (reply: unknown): unknown => {
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) return reply
  const values = Object.values(reply)
  return values.length === 1 && typeof values[0] === "object" && values[0] !== null && !Array.isArray(values[0]) ? values[0] : reply
}
