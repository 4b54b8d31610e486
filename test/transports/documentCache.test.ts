import { describe, expect, it } from "@effect/vitest"
import { documentCache } from "../../src/transports/graphql/DocumentCache.js"
import { buildSchema } from "../../src/transports/graphql/GraphqlJs.js"

const schema = buildSchema("type Query { hello: String }")
const cache = (limits: Partial<{ maxEntries: number; maxTotalLength: number; maxQueryLength: number }> = {}) =>
  documentCache({ schema, maxEntries: 10, maxTotalLength: 10_000, maxQueryLength: 1_000, ...limits })

describe("GraphQL document cache", () => {
  it("answers a repeated valid text with the same document, validated once", () => {
    const documents = cache()
    const first = documents.parse("{ hello }")
    expect(documents.validate(schema, first)).toEqual([])
    const again = documents.parse("{ hello }")
    expect(again).toBe(first)
    expect(documents.validate(schema, again)).toEqual([])
  })

  it("keeps nothing that fails validation, and refuses it every time", () => {
    const documents = cache()
    const wrong = documents.parse("{ goodbye }")
    expect(documents.validate(schema, wrong)[0]?.message).toMatch(/goodbye/)
    const again = documents.parse("{ goodbye }")
    expect(again).not.toBe(wrong)
    expect(documents.validate(schema, again)[0]?.message).toMatch(/goodbye/)
    expect(() => documents.parse("{ hello")).toThrow(/Syntax Error/)
    expect(() => documents.parse("{ hello")).toThrow(/Syntax Error/)
  })

  it("does not trust its validation for another schema", () => {
    const documents = cache()
    const other = buildSchema("type Query { goodbye: String }")
    const document = documents.parse("{ hello }")
    expect(documents.validate(schema, document)).toEqual([])
    expect(documents.validate(other, documents.parse("{ hello }"))[0]?.message).toMatch(/hello/)
  })

  it("is bounded by entries and by total text length, oldest first out; long texts are not kept", () => {
    const valid = (documents: ReturnType<typeof cache>, text: string) => {
      const document = documents.parse(text)
      documents.validate(schema, document)
      return document
    }
    const byCount = cache({ maxEntries: 2 })
    const a = valid(byCount, "{ a: hello }")
    valid(byCount, "{ b: hello }")
    valid(byCount, "{ c: hello }")
    expect(byCount.parse("{ a: hello }")).not.toBe(a)

    const byLength = cache({ maxTotalLength: 30 })
    const x = valid(byLength, "{ x: hello }")
    const y = valid(byLength, "{ y: hello }")
    valid(byLength, "{ z: hello }")
    expect(byLength.parse("{ x: hello }")).not.toBe(x)
    expect(byLength.parse("{ y: hello }")).toBe(y)

    const short = cache({ maxQueryLength: 20 })
    const long = `{ ${"x".repeat(30)}: hello }`
    expect(valid(short, long)).not.toBe(short.parse(long))
  })
})
