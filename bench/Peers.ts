import type { Measured } from "./load/Measured.js"
import type { Cell, Results, Server } from "./Results.js"
import type { Operation, Style } from "./Scenarios.js"

export const find = (results: Results, server: Server, operation: Operation, style: Cell["style"], concurrency: number) =>
  results.cells.find((c) =>
    c.server === server && c.operation === operation && c.style === style && c.concurrency === concurrency
  )

/** Who a cell of ours is held to: a server and the style of its cell. */
export interface Peer {
  readonly server: Server
  readonly style: Style
}

/**
 * The peer a user would write by hand on the same libraries (the re-anchored targets): (b),
 * connect-node + pg, for Connect and gRPC in the same style; (d), HttpRouter + @effect/sql-pg, for
 * REST; (e), graphql-js + pg, for GraphQL. The workflow in every style is held to (b)'s workflow,
 * in the same style where (b) serves it, else over Connect JSON (neither (d) nor (e) is the
 * target's peer for it).
 */
export const peerOf = (operation: Operation, style: Style): Peer =>
  operation === "CreateOnboardingWorkflow" || style === "connect-json" || style === "connect-binary" || style === "grpc"
    ? { server: "b", style: style === "rest" || style === "graphql" ? "connect-json" : style }
    : style === "rest"
    ? { server: "d", style: "rest" }
    : { server: "e", style: "graphql" }

export const peerLabel = (peer: Peer) => `(${peer.server}) ${peer.style}`

const ratioOf = (ours: Measured | undefined, theirs: Measured | undefined) =>
  ours === undefined || theirs === undefined ? undefined : ours.rps / theirs.rps

/** Ours over the peer's req/s at one concurrency. */
export const peerRatio = (results: Results, server: Server, operation: Operation, style: Style, concurrency: number) =>
  ratioOf(
    find(results, server, operation, style, concurrency)?.measured,
    find(results, peerOf(operation, style).server, operation, peerOf(operation, style).style, concurrency)?.measured
  )

/** Ours over (a)'s req/s, the floor of Node and PostgreSQL: (a) serves REST only, the same operation. */
export const floorRatio = (results: Results, server: Server, operation: Operation, style: Cell["style"], concurrency: number) =>
  ratioOf(find(results, server, operation, style, concurrency)?.measured, find(results, "a", operation, "rest", concurrency)?.measured)

/** Ours over the peer's p99 at one concurrency: the latency target's figure. */
export const p99Ratio = (results: Results, server: Server, operation: Operation, style: Style, concurrency: number) => {
  const ours = find(results, server, operation, style, concurrency)?.measured
  const peer = peerOf(operation, style)
  const theirs = find(results, peer.server, operation, peer.style, concurrency)?.measured
  return ours === undefined || theirs === undefined ? undefined : ours.p99Ms / theirs.p99Ms
}
