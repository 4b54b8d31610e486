import { Effect, Option, Tracer } from "effect"

/**
 * An attribute on the current span, when there is one. Effect.annotateCurrentSpan looks for the
 * span by failing without one, and a failure builds an Error with its stack: untraced, that is a
 * stack captured on every call, for an attribute nothing records.
 */
export const spanAttribute = (key: string, value: unknown): Effect.Effect<void> =>
  Effect.map(Effect.serviceOption(Tracer.ParentSpan), (span) => {
    if (Option.isSome(span) && span.value._tag === "Span") span.value.attribute(key, value)
  })
