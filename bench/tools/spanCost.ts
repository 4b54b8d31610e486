/**
 * What one span costs in isolation (issue 41, item 2): CPU microseconds per span, in one process,
 * one fiber making span after span around no work, so that the figure is the span's alone:
 *
 * - `none`: no span (the loop's own cost, subtracted from the rest);
 * - `effect`: Effect's own tracer (`Effect.withSpan`, nothing exported);
 * - `otel`: the process's OpenTelemetry layer as a traced process runs it (`openTelemetryLayer`:
 *   @effect/opentelemetry's tracer, the batch span processor, the OTLP/HTTP protobuf exporter),
 *   exporting to a counting sink in this process, every span sampled, the export's CPU included
 *   (the batches are flushed inside each window);
 * - `otel+attributes`: the same with the attributes our call span carries (five), and a child
 *   span inside it, counted as two spans.
 *
 *   node dist/bench/bench/tools/spanCost.js [--spans=20000] [--windows=3]
 *
 * CPU time is the process's (`process.cpuUsage`, every thread), after a warm-up of as many spans.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { openTelemetryLayer } from "../../src/main/OpenTelemetry.js"
import { otlpSink } from "../OtlpSink.js"

const option = (name: string, fallback: number) => {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`))
  return given === undefined ? fallback : Number(given.slice(name.length + 3))
}
const spans = option("spans", 20_000)
const windows = option("windows", 3)

const attributes = {
  "http.request.method": "POST",
  "url.path": "/org.v1beta1.OrgService/GetOrg",
  "rpc.system": "connect_rpc",
  "rpc.service": "org.v1beta1.OrgService",
  "rpc.method": "GetOrg"
}

type Shape = (i: number) => Effect.Effect<void>
const shapes: Record<string, { readonly perIteration: number; readonly make: Shape }> = {
  none: { perIteration: 1, make: () => Effect.void },
  span: { perIteration: 1, make: () => Effect.withSpan(Effect.void, "span", { captureStackTrace: false }) },
  "span+attributes+child": {
    perIteration: 2,
    make: () =>
      Effect.withSpan(
        Effect.withSpan(Effect.void, "child", { captureStackTrace: false }),
        "call",
        { kind: "server", captureStackTrace: false, attributes }
      )
  }
}

/** CPU µs per iteration of `shape`, `spans` times in one fiber, then `after` (until exported). */
const window = (
  runtime: ManagedRuntime.ManagedRuntime<never, unknown>,
  shape: Shape,
  made: number,
  after: (made: number) => Promise<void>
) =>
  async () => {
    const start = process.cpuUsage()
    await runtime.runPromise(Effect.forEach(Array.from({ length: spans }, (_, i) => i), shape, { discard: true }))
    await after(made)
    const used = process.cpuUsage(start)
    return (used.user + used.system) / spans
  }

const measure = async (
  label: string,
  runtime: ManagedRuntime.ManagedRuntime<never, unknown>,
  after: (made: number) => Promise<void>
) => {
  for (const [name, { perIteration, make }] of Object.entries(shapes)) {
    const run = window(runtime, make, name === "none" ? 0 : spans * perIteration, after)
    await run()
    const figures: Array<number> = []
    for (let i = 0; i < windows; i++) figures.push(await run())
    const perSpan = figures.map((each) => (each / perIteration).toFixed(2)).join(" · ")
    console.log(`${label.padEnd(6)} ${name.padEnd(24)} CPU µs per iteration: ${figures.map((each) => each.toFixed(2)).join(" · ")}` +
      (name === "none" ? "" : `   (per span, loop included: ${perSpan})`))
  }
}

// Effect's own tracer: spans made and ended, nothing exported.
const plain = ManagedRuntime.make(Layer.empty)
await measure("effect", plain, async () => {})
await plain.dispose()

const sink = await otlpSink()
process.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = `${sink.url}/v1/traces`
// Full batches go at once; the last part of a window's after this delay rather than the default 5 s.
process.env["OTEL_BSP_SCHEDULE_DELAY"] ??= "100"
// A window makes its spans faster than they can be sent: room for all of them, so none is dropped.
process.env["OTEL_BSP_MAX_QUEUE_SIZE"] ??= String(2 * spans + 1_000)
const otel = ManagedRuntime.make(openTelemetryLayer("span-cost", { traces: true, metrics: false, metricsIntervalMillis: 60_000 }))
let expected = 0
/** Until the sink has every span made so far: the window's CPU includes their export. */
const exported = async (made: number) => {
  expected += made
  while (sink.spans() < expected) await new Promise((resolve) => setTimeout(resolve, 10))
}
await measure("otel", otel, exported)
await otel.dispose()
console.log(`spans the sink received: ${sink.spans()}`)
await sink.close()
