import { type DescMessage, fromJson, type JsonValue } from "@bufbuild/protobuf"
import { describe, expect, it } from "vitest"
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { unknownFields } from "../../src/transports/corrections/connect/ignoredUnknownFields.js"

/**
 * The strict decoder's wrong-type check (corrections/connect/wrongJsonTypes.ts) restates what
 * proto3 JSON takes for each field type; protobuf-es reads the message after it. Over every field
 * of every request message the ports serve, each value below must be refused by the check exactly
 * when protobuf-es refuses it: a value the check let through would get connect-es's wording and no
 * BadRequest, one it refused that protobuf-es takes would refuse a valid call. Timestamps are
 * rolledOverTimestamps.ts's to check.
 */

const values: ReadonlyArray<JsonValue> = [
  null, true, 0, 5, -1, 1.5, 2 ** 31, -(2 ** 31), "", "x", "10", "1e1", " 1", "0x10", {}, { name: "x" }, [], ["x"], [5], [null], [{}]
]

/** Each message a request holds, the request's own first, by type name. */
const messagesIn = (message: DescMessage, found = new Map<string, DescMessage>()): Map<string, DescMessage> => {
  if (found.has(message.typeName) || message.typeName.startsWith("google.protobuf.")) return found
  found.set(message.typeName, message)
  for (const field of message.fields) if (field.message !== undefined) messagesIn(field.message, found)
  return found
}

const requests = [OrgService, ProfileService, LicenseService, WorkflowService].flatMap((service) => service.methods.map((method) => method.input))
const messages = [...new Map(requests.flatMap((input) => [...messagesIn(input)])).values()]

const protobufEsTakes = (message: DescMessage, json: JsonValue): boolean => {
  try {
    fromJson(message, json)
    return true
  } catch {
    return false
  }
}

describe("wrongJsonTypes against protobuf-es", () => {
  it("refuses a field's JSON value exactly when protobuf-es does", () => {
    const disagreements = messages.flatMap((message) =>
      message.fields.filter((field) => field.message?.typeName !== "google.protobuf.Timestamp").flatMap((field) =>
        values.flatMap((value) => {
          const json = { [field.jsonName]: value }
          const refused = unknownFields(message, json).length > 0
          return refused === !protobufEsTakes(message, json) ? [] : [{ field: `${message.typeName}.${field.name}`, value, refused }]
        })
      )
    )
    expect(messages.length).toBeGreaterThan(10)
    expect(disagreements).toEqual([])
  })
})
