import type { Style } from "./Scenarios.js"

/** A baseline server: what it is, its entry point under bench/baselines/, the styles it serves. */
export interface Baseline {
  readonly title: string
  readonly script: string
  readonly styles: ReadonlyArray<Style>
}

/**
 * The baselines started as processes ((c) is pgbench), in the order a run loads them; gRPC, where
 * served, is on a port of its own (GRPC_PORT). docs/benchmarks.md §3 says what each one is.
 */
export const baselines = {
  a: { title: "node:http + pg", script: "nodeHttpPg.js", styles: ["rest"] },
  b: { title: "connect-node + pg", script: "connectPg.js", styles: ["connect-json", "connect-binary", "grpc"] },
  d: { title: "HttpRouter + @effect/sql-pg", script: "effectRest.js", styles: ["rest"] },
  h: { title: "HttpApi + SqlSchema repositories + @effect/sql-pg, as Effect-TS/examples' http-server", script: "effectHttpApi.js", styles: ["rest"] },
  e: { title: "graphql-js + pg", script: "graphqlPg.js", styles: ["graphql"] },
  f: {
    title: "connect-node + @effect/sql-pg, ManagedRuntime",
    script: "connectEffect.js",
    styles: ["connect-json", "connect-binary", "grpc"]
  },
  g: { title: "graphql-js + @effect/sql-pg, ManagedRuntime", script: "graphqlEffect.js", styles: ["graphql"] }
} as const satisfies Record<string, Baseline>

export type BaselineServer = keyof typeof baselines

/** The baseline a command line names, if it names one. */
export const baselineOf = (server: string): Baseline | undefined =>
  Object.hasOwn(baselines, server) ? (baselines as Record<string, Baseline>)[server] : undefined
