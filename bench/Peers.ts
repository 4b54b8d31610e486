import type { Measured } from "./load/Measured.js"
import type { Cell, Results, Server } from "./Results.js"
import type { Operation, Style } from "./Scenarios.js"

export const find = (results: Results, server: Server, operation: Operation, style: Cell["style"], concurrency: number) =>
  results.cells.find((c) =>
    c.server === server && c.operation === operation && c.style === style && c.concurrency === concurrency
  )

/**
 * A cell in which no call was answered within the measurement (a server that stalled for the
 * whole window: the load generators wait 10 s for an answer, longer than a measurement) has no
 * CPU per call, rate or p99 to compare: it is a failure (Targets.ts), not a figure.
 */
export const unanswered = (cell: Cell) => cell.measured.requests === 0

/** `find`, without a cell in which no call was answered. */
const answered = (results: Results, server: Server, operation: Operation, style: Cell["style"], concurrency: number) => {
  const cell = find(results, server, operation, style, concurrency)
  return cell === undefined || unanswered(cell) ? undefined : cell
}

/** Who a cell of ours is compared with: a server and the style of its cell. */
export interface Peer {
  readonly server: Server
  readonly style: Style
}

/**
 * The peer the targets name (docs/benchmarks.md §3): the minimal Effect service on the same libraries, doing
 * the same statements with nothing of ours, in the same style. (f), connect-node + @effect/sql-pg
 * through a ManagedRuntime, for Connect JSON, Connect binary and gRPC; (d), HttpRouter +
 * @effect/sql-pg, for REST; (g), graphql-js + @effect/sql-pg through a ManagedRuntime, for
 * GraphQL. Every operation, the workflow included: each of them serves it in its style.
 */
export const peerOf = (style: Style): Peer =>
  style === "rest" ? { server: "d", style } : style === "graphql" ? { server: "g", style } : { server: "f", style }

/**
 * The hand-written peer without Effect, reported beside, not targeted: the distance to it is the
 * price of Effect itself. (b), connect-node + pg, for Connect JSON, Connect binary and gRPC; (e),
 * graphql-js + pg, for GraphQL; for REST, (a), the bare node:http + pg server that is also Node's
 * floor for every style.
 */
export const handWrittenOf = (style: Style): Peer =>
  style === "rest" ? { server: "a", style } : style === "graphql" ? { server: "e", style } : { server: "b", style }

/**
 * The idiomatic Effect peer, reported beside the minimal one, not targeted (docs/benchmarks.md §7): (h), the
 * REST paths written as Effect-TS/examples' http-server writes a service (HttpApi decoding with the
 * domain's schemas, errors with their status, SqlSchema repositories). REST only.
 */
export const idiomaticOf = (style: Style): Peer | undefined => style === "rest" ? { server: "h", style } : undefined

/** Node's floor, (a)'s REST server, for the same operation in every style. */
export const floor: Peer = { server: "a", style: "rest" }

export const peerLabel = (peer: Peer) => `(${peer.server}) ${peer.style}`

const ratio = (ours: number | undefined, theirs: number | undefined) =>
  ours === undefined || theirs === undefined || !(theirs > 0) ? undefined : ours / theirs

/** Ours over the other's req/s at one concurrency. */
export const rateRatio = (results: Results, server: Server, operation: Operation, style: Cell["style"], peer: Peer, concurrency: number) =>
  ratio(
    answered(results, server, operation, style, concurrency)?.measured.rps,
    answered(results, peer.server, operation, peer.style, concurrency)?.measured.rps
  )

/** Ours over the other's CPU µs per call of the serving process at one concurrency. */
export const cpuRatio = (results: Results, server: Server, operation: Operation, style: Cell["style"], peer: Peer, concurrency: number) =>
  ratio(
    answered(results, server, operation, style, concurrency)?.cpuMicrosPerRequest,
    answered(results, peer.server, operation, peer.style, concurrency)?.cpuMicrosPerRequest
  )

/** Ours over the other's p99 at one concurrency. */
export const p99Ratio = (results: Results, server: Server, operation: Operation, style: Cell["style"], peer: Peer, concurrency: number) => {
  const ours: Measured | undefined = answered(results, server, operation, style, concurrency)?.measured
  const theirs: Measured | undefined = answered(results, peer.server, operation, peer.style, concurrency)?.measured
  return ratio(ours?.p99Ms, theirs?.p99Ms)
}
