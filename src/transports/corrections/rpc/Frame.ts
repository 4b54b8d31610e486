/** @effect/rpc's JSON frames, read as plain JSON: what the corrections look into. */
export type JsonObject = Record<string, unknown>

export const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)
