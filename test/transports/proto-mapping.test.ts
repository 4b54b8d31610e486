import type { DescMessage, DescService } from "@bufbuild/protobuf"
import type * as Rpc from "@effect/rpc/Rpc"
import { describe, expect, it } from "@effect/vitest"
import { Schema, SchemaAST as AST } from "effect"
import { Org } from "../../src/domain/Org.js"
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgSchema, OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { LicenseOperations } from "../../src/contract/LicenseOperations.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../src/contract/ProfileOperations.js"
import { WorkflowOperations } from "../../src/contract/WorkflowOperations.js"
import { elementOf, objectOf } from "../../src/transports/SchemaShape.js"

/**
 * Connect and gRPC map messages generically (transports/connect/ProtoCodec.ts): a field is carried
 * when the message and the operation's schema both name it (the JSON name). So every message of
 * every service is walked here against its operation's payload and success schemas, nested
 * messages included: a field on one side only (added to the .proto and not to the domain, or the
 * other way round) fails this test instead of being dropped on the wire without a word.
 */

/** An operations table, for looking its operations up by name. */
interface Table {
  readonly requests: ReadonlyMap<string, Rpc.Any>
}

const services: ReadonlyArray<readonly [DescService, Table]> = [
  [OrgService, OrgOperations],
  [ProfileService, ProfileOperations],
  [LicenseService, LicenseOperations],
  [WorkflowService, WorkflowOperations]
]

/** Every difference between a message and a schema, as `path: only in …` lines. */
const differences = (message: DescMessage, ast: AST.AST, path: string): Array<string> => {
  const object = objectOf(AST.encodedAST(ast))
  if (object === undefined) return [`${path}: the schema is not an object`]
  const members = new Map(object.propertySignatures.map((member) => [String(member.name), member.type]))
  const fields = new Map(message.fields.map((field) => [field.jsonName, field]))
  const found = [
    ...[...fields.keys()].filter((name) => !members.has(name)).map((name) => `${path}.${name}: only in ${message.typeName}`),
    ...[...members.keys()].filter((name) => !fields.has(name)).map((name) => `${path}.${name}: only in the schema`)
  ]
  for (const [name, field] of fields) {
    const member = members.get(name)
    if (member === undefined) continue
    if (field.fieldKind === "message" && field.message.typeName !== "google.protobuf.Timestamp") {
      found.push(...differences(field.message, member, `${path}.${name}`))
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      const element = elementOf(AST.encodedAST(member))
      found.push(...(element === undefined ? [`${path}.${name}: not a list in the schema`] : differences(field.message, element, `${path}.${name}[]`)))
    }
  }
  return found
}

/** A Get/Create reply is the record itself under one field (`{org: ...}`); a list's is the page as it is. */
const replyDifferences = (message: DescMessage, success: AST.AST, path: string): Array<string> => {
  const [only] = message.fields
  const wrapped = message.fields.length === 1 && only!.fieldKind === "message" &&
    !objectOf(AST.encodedAST(success))?.propertySignatures.some((member) => member.name === only!.jsonName)
  return wrapped ? differences(only!.message!, success, `${path}.${only!.jsonName}`) : differences(message, success, path)
}

describe("Connect and gRPC messages name the same fields as the operations' schemas", () => {
  for (const [service, group] of services) {
    for (const method of service.methods) {
      it(`${service.typeName}/${method.name}`, () => {
        const rpc = group.requests.get(method.name) as Rpc.AnyWithProps | undefined
        expect(rpc, `an operation ${method.name} in the table`).toBeDefined()
        expect([
          ...differences(method.input, rpc!.payloadSchema.ast, "request"),
          ...replyDifferences(method.output, rpc!.successSchema.ast, "reply")
        ]).toEqual([])
      })
    }
  }

  it("the walk notices a field on one side only", () => {
    const { name: _, ...withoutName } = Org.fields
    expect(differences(OrgSchema, Schema.Struct(withoutName).ast, "org")).toEqual(["org.name: only in org.v1beta1.Org"])
    const withMore = Schema.Struct({ ...Org.fields, plan: Schema.String })
    expect(differences(OrgSchema, withMore.ast, "org")).toEqual(["org.plan: only in the schema"])
  })
})
