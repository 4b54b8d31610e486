import { Code } from "@connectrpc/connect"
import type { DomainError } from "../domain/Errors.js"

/*
 * The codes of the one error table, apart from the bodies written from them (ErrorTable.ts), so
 * that the client package, which declares each REST error's status from it, carries no server code.
 */

/** How one kind of failure shows in every access style (contract §8). */
export interface WireError {
  readonly connect: Code
  /** gRPC status code; equal to the Connect code's number, kept explicit because clients depend on it. */
  readonly grpc: number
  /** REST status (Connect's own HTTP statuses are fixed by its protocol and set by connect-node). */
  readonly http: number
  readonly graphql: string
}

export type FailureKind =
  | DomainError["_tag"]
  | "ResourceExhausted"
  | "Unauthenticated"
  | "DeadlineExceeded"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "MisdirectedRequest"
  | "Unimplemented"
  | "Internal"

/** The one mapping table: a failure's kind -> its code in each style. */
export const errorTable: { readonly [K in FailureKind]: WireError } = {
  InvalidArgument: { connect: Code.InvalidArgument, grpc: 3, http: 400, graphql: "INVALID_ARGUMENT" },
  NotFound: { connect: Code.NotFound, grpc: 5, http: 404, graphql: "NOT_FOUND" },
  AlreadyExists: { connect: Code.AlreadyExists, grpc: 6, http: 409, graphql: "ALREADY_EXISTS" },
  ResourceExhausted: { connect: Code.ResourceExhausted, grpc: 8, http: 413, graphql: "RESOURCE_EXHAUSTED" },
  Unavailable: { connect: Code.Unavailable, grpc: 14, http: 503, graphql: "UNAVAILABLE" },
  Unauthenticated: { connect: Code.Unauthenticated, grpc: 16, http: 401, graphql: "UNAUTHENTICATED" },
  // A request that did not arrive in full in time (REQUEST_TIMEOUT_MS); HTTP 408 as node:http answers it.
  DeadlineExceeded: { connect: Code.DeadlineExceeded, grpc: 4, http: 408, graphql: "DEADLINE_EXCEEDED" },
  // A path that exists, asked with a method it does not take (the answer carries `Allow`).
  MethodNotAllowed: { connect: Code.Unimplemented, grpc: 12, http: 405, graphql: "METHOD_NOT_ALLOWED" },
  // A body that is not JSON in UTF-8 where JSON is required; the body is not read.
  UnsupportedMediaType: { connect: Code.InvalidArgument, grpc: 3, http: 415, graphql: "UNSUPPORTED_MEDIA_TYPE" },
  // A Host this server does not answer to (ALLOWED_HOSTS, limits/AllowedHosts.ts): HTTP 421 (Connect
  // unary too, its body saying invalid_argument); Connect and gRPC have no such code, and the
  // request is the caller's mistake.
  MisdirectedRequest: { connect: Code.InvalidArgument, grpc: 3, http: 421, graphql: "MISDIRECTED_REQUEST" },
  // A Connect or gRPC procedure this port does not serve (a wrong package, service or method name):
  // HTTP 404 as Connect's protocol maps `unimplemented`.
  Unimplemented: { connect: Code.Unimplemented, grpc: 12, http: 404, graphql: "UNIMPLEMENTED" },
  Internal: { connect: Code.Internal, grpc: 13, http: 500, graphql: "INTERNAL" }
}
