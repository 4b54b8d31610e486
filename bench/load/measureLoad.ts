import type { Scenario } from "../Scenarios.js"
import { grpcNode } from "./grpcNode.js"
import { h2load } from "./h2load.js"
import type { Load, Measured } from "./Measured.js"
import { wrk } from "./wrk.js"

/**
 * One load on one scenario, by the generator its style takes: wrk over HTTP/1.1; over gRPC,
 * h2load for a read, and the Node client for a create, whose every call needs an id of its own.
 * `scratch` holds the generators' scripts and logs.
 */
export const measureLoad = (s: Scenario, url: string, load: Load, scratch: string): Promise<Measured> =>
  s.style === "grpc" ? (s.freshId ? grpcNode(s, url, load) : h2load(s, url, load, scratch)) : wrk(s, url, load, scratch)
