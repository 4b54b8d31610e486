import { Exit, Option, Tracer } from "effect"

/** A span as the tracer saw it: its name, its parent's name, its attributes and events, how it ended. */
export interface Recorded {
  readonly name: string
  readonly parent: string | undefined
  readonly kind: Tracer.SpanKind
  readonly attributes: Map<string, unknown>
  readonly events: Array<{ readonly name: string; readonly attributes: Record<string, unknown> | undefined }>
  failed: boolean | undefined
  /** How it ended, once it has. */
  exit: Exit.Exit<unknown, unknown> | undefined
}

/** A tracer that keeps every span it makes, as an exporter would receive them. */
export const recordingTracer = () => {
  const spans: Array<Recorded> = []
  let next = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const recorded: Recorded = {
        name,
        parent: Option.match(parent, { onNone: () => undefined, onSome: (span) => (span._tag === "Span" ? span.name : "external") }),
        kind,
        attributes: new Map(),
        events: [],
        failed: undefined,
        exit: undefined
      }
      spans.push(recorded)
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: String(++next),
        traceId: "trace",
        parent,
        context,
        get status() {
          return status
        },
        attributes: recorded.attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => {
          status = { _tag: "Ended", startTime, endTime, exit }
          recorded.failed = Exit.isFailure(exit)
          recorded.exit = exit
        },
        attribute: (key, value) => recorded.attributes.set(key, value),
        event: (eventName, _time, attributes) => recorded.events.push({ name: eventName, attributes }),
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}
