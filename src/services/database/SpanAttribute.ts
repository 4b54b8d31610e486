import { Clock, Effect, Option, Tracer } from "effect"

/**
 * An attribute on the current span, when there is one. Effect.annotateCurrentSpan looks for the
 * span by failing without one, and a failure builds an Error with its stack: untraced, that is a
 * stack captured on every call, for an attribute nothing records.
 */
export const spanAttribute = (key: string, value: unknown): Effect.Effect<void> =>
  Effect.map(Effect.serviceOption(Tracer.ParentSpan), (span) => {
    if (Option.isSome(span) && span.value._tag === "Span") span.value.attribute(key, value)
  })

/** An event on the current span, when there is one (as `spanAttribute`, without a failure to find it). */
export const spanEvent = (name: string, attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (parent) => {
    if (Option.isNone(parent) || parent.value._tag !== "Span") return Effect.void
    const span = parent.value
    return Effect.map(Clock.currentTimeNanos, (now) => span.event(name, now, attributes))
  })
