import { create, toBinary } from "@bufbuild/protobuf"
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import { describe, expect, it } from "@effect/vitest"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { holdsMoreFields } from "../../src/transports/limits/ProtobufFieldBound.js"
import { parse } from "../../src/transports/graphql/GraphqlJs.js"
import { limitErrors, rootCalls } from "../../src/transports/limits/QueryLimits.js"
import { jsonBoundsBroken } from "../../src/transports/limits/JsonBounds.js"

/**
 * The three bounds of issue 24 item 5 on their own, exactly: what each counts, and that it counts
 * what a parser would make of the input, not what merely looks like it. (test/reliability/stall.test.ts
 * sends each over the wire and measures what it spares the other ports.)
 */

const utf8 = (text: string) => new TextEncoder().encode(text)
const within = (text: string, maxDepth: number, maxValues: number) => jsonBoundsBroken(utf8(text), { maxDepth, maxValues })

describe("JSON bounds: depth and values counted in one pass, before parsing", () => {
  it("counts every object member and array element, at any depth, and the levels open at once", () => {
    const body = `{"a": 1, "b": [1, 2, {"c": null}], "d": {}, "e": []}`
    // values: a, b, 1, 2, {…}, c, d, e = 8; depth 3 ({ [ {)
    expect(within(body, 3, 8)).toBeUndefined()
    expect(within(body, 2, 8)).toMatch(/more than 2 deep/)
    expect(within(body, 3, 7)).toMatch(/more than 7 values/)
  })

  it("does not count brackets, commas or quotes inside strings, escaped quotes included", () => {
    const body = JSON.stringify({ text: `[[[{{{ , , , "quoted \\" ]]]`, more: "\\" })
    expect(JSON.parse(body)).toBeTruthy()
    expect(within(body, 1, 2)).toBeUndefined()
  })

  it("is not fooled by multi-byte UTF-8 or by stray closers buying depth", () => {
    expect(within(JSON.stringify({ name: "🙂 ü [ ]" }), 1, 1)).toBeUndefined()
    expect(within(`]]]]{"a": [[1]]}`, 2, 10)).toMatch(/more than 2 deep/)
  })

  it("an empty object or array holds no value", () => {
    expect(within(`{"a": {}, "b": []}`, 2, 2)).toBeUndefined()
    expect(within(`[]`, 1, 0)).toBeUndefined()
  })

  it("the largest request of these APIs, a workflow, is 2 deep with 9 values (3 and 14 in an /rpc frame): far within the defaults (32, 1000)", () => {
    const workflow = {
      workflowOptions: { workflowId: "8e0a3d1c-3c8b-4f33-9d7e-0c8c5d4d7f21" },
      license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
      org: { name: "Acme" },
      profile: { fullName: "Ada Lovelace" }
    }
    expect(within(JSON.stringify(workflow), 2, 9)).toBeUndefined()
    expect(within(JSON.stringify(workflow), 2, 8)).toMatch(/more than 8 values/)
  })
})

const unknownFields = (count: number) => {
  const writer = new BinaryWriter()
  for (let i = 0; i < count; i++) writer.tag(15, WireType.Varint).uint32(1)
  return writer.finish()
}

describe("protobuf field bound: every tag counts, nested messages' too", () => {
  const org = toBinary(CreateOrgRequestSchema, create(CreateOrgRequestSchema, { id: "x", name: "Acme" }))

  it("counts known and unknown fields of the message", () => {
    const message = Buffer.concat([org, unknownFields(8)]) // 2 + 8
    expect(holdsMoreFields(CreateOrgRequestSchema, message, 10)).toBe(false)
    expect(holdsMoreFields(CreateOrgRequestSchema, message, 9)).toBe(true)
  })

  it("counts the fields inside a known message field, where unknown ones would be kept too", () => {
    // org (field 3) holding name and 50 unknown fields: 1 + 1 + 50 tags.
    const inner = Buffer.concat([new BinaryWriter().tag(1, WireType.LengthDelimited).string("Acme").finish(), unknownFields(50)])
    const nested = new BinaryWriter().tag(3, WireType.LengthDelimited).bytes(inner).finish()
    expect(holdsMoreFields(CreateOnboardingWorkflowRequestSchema, nested, 52)).toBe(false)
    expect(holdsMoreFields(CreateOnboardingWorkflowRequestSchema, nested, 51)).toBe(true)
  })

  it("stops at the bound: half a million fields are not walked to the end", () => {
    const message = Buffer.concat([org, unknownFields(500_000)])
    expect(holdsMoreFields(CreateOrgRequestSchema, message, 1000)).toBe(true)
  })

  it("leaves what is not protobuf to protobuf-es to refuse", () => {
    expect(holdsMoreFields(CreateOrgRequestSchema, Uint8Array.from([0x0a, 0xff]), 1)).toBe(false)
  })
})

describe("GraphQL service calls: the fields at an operation's root", () => {
  const calls = (text: string) => [...rootCalls(parse(text)).values()]

  it("counts aliases, fragments and inline fragments at the root, not fields below it nor __typename", () => {
    expect(calls(`{ a: orgs { orgs { id name } } b: orgs { nextPageToken } __typename }`)).toEqual([2])
    expect(calls(`{ ...F ... on Query { org(id: "x") { org { id } } } } fragment F on Query { orgs { orgs { id } } o: org(id: "y") { __typename } }`))
      .toEqual([3])
    expect(calls(`mutation { a: createOrg(input: {id: "x", name: "n"}) { org { id } } b: createOrg(input: {id: "y", name: "n"}) { org { id } } }`))
      .toEqual([2])
  })

  it("measures a fragment once however often it is spread: 2^30 calls from a few lines, counted without expanding them", () => {
    let text = "{ ...F0 }"
    for (let i = 0; i < 30; i++) text += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`
    text += ` fragment F30 on Query { orgs { nextPageToken } }`
    expect(calls(text)).toEqual([1_000_000])
  })

  it("refuses an operation over the budget with RESOURCE_EXHAUSTED naming it", () => {
    const document = parse(`{ ${Array.from({ length: 11 }, (_, i) => `l${i}: orgs { nextPageToken }`).join(" ")} }`)
    const [error] = limitErrors(document, { maxDepth: 8, maxFields: 100, maxCalls: 10 })
    expect(error?.message).toBe("the operation makes 11 service calls (fields at its root, aliases included); at most 10 are allowed")
    expect(error?.extensions["code"]).toBe("RESOURCE_EXHAUSTED")
    expect(limitErrors(document, { maxDepth: 8, maxFields: 100, maxCalls: 11 })).toEqual([])
  })
})
