import { create, type DescMessage, type DescService, equals, fromBinary } from "@bufbuild/protobuf"
import {
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type SourceCodeInfo_Location
} from "@bufbuild/protobuf/wkt"
import { createClient } from "@connectrpc/connect"
import { createGrpcTransport } from "@connectrpc/connect-node"
import type * as Rpc from "@effect/rpc/Rpc"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Option, SchemaAST as AST } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as reflectionV1 from "../../src/gen/grpc/reflection/v1/reflection_pb.js"
import { file_license_v1beta1_license, LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { file_org_v1beta1_org, OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { file_profile_v1beta1_profile, ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { file_workflow_v1beta1_workflow, WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { LicenseOperations } from "../../src/contract/LicenseOperations.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../src/contract/ProfileOperations.js"
import { WorkflowOperations } from "../../src/contract/WorkflowOperations.js"
import { domainSchemaOf, OperationDescription } from "../../src/contract/WireShape.js"
import { elementOf, objectOf } from "../../src/transports/SchemaShape.js"
import { descriptionOf } from "../../src/transports/graphql/Descriptions.js"
import { withSourceInfo } from "../../src/transports/connect/ReflectionService.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/**
 * Each RPC and each field of the services' .proto files carries, as its leading comment, the
 * description declared once in the operations table (`OperationDescription`) and the domain
 * (`described(...)`): what `buf curl --list-methods`, reflection clients and generated code show
 * is what OpenAPI and GraphQL show. The comments are copies, so this test holds them equal: it
 * reads them from `buf build` (the descriptor set with source info) and fails on any difference.
 *
 * `UPDATE_PROTO_COMMENTS=1 npx vitest run test/transports/proto-comments.test.ts` rewrites them
 * from the declarations (then `npm run generate`).
 */

const root = fileURLToPath(new URL("../../", import.meta.url))

interface Table {
  readonly requests: ReadonlyMap<string, Rpc.Any>
}

const services: ReadonlyArray<readonly [DescService, Table]> = [
  [OrgService, OrgOperations],
  [ProfileService, ProfileOperations],
  [LicenseService, LicenseOperations],
  [WorkflowService, WorkflowOperations]
]

const membersOf = (ast: AST.AST) =>
  new Map((objectOf(ast)?.propertySignatures ?? []).map((member) => [String(member.name), member]))

const memberDescription = (member: AST.PropertySignature) =>
  Option.getOrUndefined(AST.getDescriptionAnnotation(member)) ?? descriptionOf(member.type)

/** What each RPC and field should say, by its full name (`org.v1beta1.Org.name`); undefined: the declarations say nothing. */
const declared = () => {
  const expected = new Map<string, string | undefined>()
  const conflicts: Array<string> = []
  const put = (name: string, text: string | undefined) => {
    const before = expected.get(name)
    if (expected.has(name) && before !== text && text !== undefined) {
      if (before === undefined) expected.set(name, text)
      else conflicts.push(`${name}: "${before}" and "${text}"`)
    } else if (!expected.has(name)) expected.set(name, text)
  }
  const walk = (message: DescMessage, ast: AST.AST) => {
    const members = membersOf(ast)
    for (const field of message.fields) {
      const member = members.get(field.jsonName)
      put(`${message.typeName}.${field.name}`, member === undefined ? undefined : memberDescription(member))
      if (member === undefined || field.message === undefined || field.message.typeName.startsWith("google.protobuf.")) continue
      walk(field.message, field.fieldKind === "list" ? elementOf(member.type) ?? member.type : member.type)
    }
  }
  for (const [service, table] of services) {
    for (const method of service.methods) {
      const rpc = table.requests.get(method.name) as unknown as Rpc.AnyWithProps
      put(`${service.typeName}.${method.name}`, Option.getOrUndefined(Context.getOption(rpc.annotations, OperationDescription)))
      walk(method.input, domainSchemaOf(rpc.payloadSchema).ast)
      // A Get/Create reply is the record under one field (`{org: ...}`); a list's is the page as it is.
      const success = rpc.successSchema.ast
      const [only] = method.output.fields
      if (method.output.fields.length === 1 && only!.message !== undefined && !membersOf(success).has(only!.jsonName)) {
        put(`${method.output.typeName}.${only!.name}`, descriptionOf(success))
        walk(only!.message, success)
      } else {
        walk(method.output, success)
      }
    }
  }
  return { expected, conflicts }
}

/** The descriptor set `buf build` makes of proto/, with source info. */
const built = () =>
  fromBinary(FileDescriptorSetSchema, execFileSync("npx", ["buf", "build", "-o", "-#format=binpb"], { cwd: root, maxBuffer: 64 << 20 }))

interface Commented {
  readonly file: FileDescriptorProto
  readonly location: SourceCodeInfo_Location | undefined
}

/** Every method and field of the set by its full name, with its source location. */
const elements = (files: ReadonlyArray<FileDescriptorProto>) => {
  const found = new Map<string, Commented>()
  for (const file of files) {
    const locations = new Map((file.sourceCodeInfo?.location ?? []).map((location) => [location.path.join("."), location]))
    const at = (path: ReadonlyArray<number>) => locations.get(path.join("."))
    file.service.forEach((service, s) =>
      service.method.forEach((method, m) =>
        found.set(`${file.package}.${service.name}.${method.name}`, { file, location: at([6, s, 2, m]) })
      )
    )
    const messages = (list: typeof file.messageType, prefix: string, path: ReadonlyArray<number>) =>
      list.forEach((message, i) => {
        const here = [...path, i]
        message.field.forEach((field, f) => found.set(`${prefix}.${message.name}.${field.name}`, { file, location: at([...here, 2, f]) }))
        messages(message.nestedType, `${prefix}.${message.name}`, [...here, 3])
      })
    messages(file.messageType, file.package, [4])
  }
  return found
}

/** A comment as one line of text: its lines joined by spaces. */
const flat = (comment: string | undefined) =>
  comment === undefined || comment.trim() === "" ? undefined : comment.split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ")

/** `text` as `//` lines of at most `width` characters, at `indent`. */
const commentLines = (text: string, indent: string, width = 100) => {
  const lines: Array<string> = []
  for (const word of text.split(" ")) {
    const last = lines[lines.length - 1]
    if (last !== undefined && indent.length + 3 + last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`
    else lines.push(word)
  }
  return lines.map((line) => `${indent}// ${line}`)
}

/** Rewrites the leading comment of each element that has a declared description, from the bottom of each file up. */
const rewrite = (found: ReadonlyMap<string, Commented>, expected: ReadonlyMap<string, string | undefined>) => {
  const byFile = new Map<string, Array<{ line: number; text: string }>>()
  for (const [name, { file, location }] of found) {
    const text = expected.get(name)
    if (text === undefined || location === undefined) continue
    const edits = byFile.get(file.name) ?? []
    edits.push({ line: location.span[0]!, text })
    byFile.set(file.name, edits)
  }
  for (const [name, edits] of byFile) {
    const path = `${root}proto/${name}`
    const lines = readFileSync(path, "utf8").split("\n")
    for (const { line, text } of edits.sort((a, b) => b.line - a.line)) {
      let first = line
      while (first > 0 && /^\s*\/\//.test(lines[first - 1]!)) first--
      const indent = /^\s*/.exec(lines[line]!)![0]
      lines.splice(first, line - first, ...commentLines(text, indent))
    }
    writeFileSync(path, lines.join("\n"))
  }
}

describe("the .proto files' comments are the declared descriptions", () => {
  const { conflicts, expected } = declared()

  it("the declarations describe each field the same wherever a message is used", () => {
    expect(conflicts).toEqual([])
  })

  it("each RPC and field of the services has the description declared for it as its leading comment", () => {
    const files = built().file.filter((file) => !file.name.startsWith("grpc/") && !file.name.startsWith("google/"))
    let found = elements(files)
    if (process.env["UPDATE_PROTO_COMMENTS"] === "1") {
      rewrite(found, expected)
      found = elements(built().file.filter((file) => !file.name.startsWith("grpc/") && !file.name.startsWith("google/")))
    }
    const differences = [...found].flatMap(([name, { location }]) => {
      const want = expected.get(name)
      const have = flat(location?.leadingComments)
      if (want === undefined) return [`${name}: no description declared${have === undefined ? "" : ` (the proto says "${have}")`}`]
      return have === want ? [] : [`${name}: the proto says ${have === undefined ? "nothing" : `"${have}"`}, the declaration "${want}"`]
    })
    expect(differences).toEqual([])
    // Every service RPC and field was looked at.
    expect([...expected.keys()].filter((name) => !found.has(name))).toEqual([])
  })
})

/** The file reflection answers for `symbol`, first of its answer, as a client decodes it. */
const reflectedFile = async (url: string, symbol: string) => {
  const client = createClient(reflectionV1.ServerReflection, createGrpcTransport({ baseUrl: url }))
  const requests = async function*() {
    yield create(reflectionV1.ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: symbol } })
  }
  for await (const answer of client.serverReflectionInfo(requests())) {
    if (answer.messageResponse.case === "fileDescriptorResponse") {
      return fromBinary(FileDescriptorProtoSchema, answer.messageResponse.value.fileDescriptorProto[0]!)
    }
  }
  throw new Error(`no file for ${symbol}`)
}

/** What a descriptor declares, comments apart: each message's fields and each service's methods. */
const shape = (file: FileDescriptorProto) => [
  ...file.messageType.flatMap((message) => message.field.map((field) => `${message.name}.${field.name}=${field.number}:${field.type}:${field.typeName}`)),
  ...file.service.flatMap((service) => service.method.map((method) => `${service.name}.${method.name}(${method.inputType})${method.outputType}`))
]

describe("gRPC server reflection serves the comments", () => {
  it("src/gen/source_info_pb.ts is what `buf build` makes of proto/ now (else: npm run generate)", () => {
    const now = new Map(built().file.map((file) => [file.name, file]))
    for (const [name, committed] of withSourceInfo) {
      const current = now.get(name)
      expect(current, name).toBeDefined()
      expect(equals(FileDescriptorProtoSchema, committed, current!), name).toBe(true)
    }
  })

  it("those descriptors declare what the generated code does", () => {
    for (const file of [file_org_v1beta1_org, file_profile_v1beta1_profile, file_license_v1beta1_license, file_workflow_v1beta1_workflow]) {
      expect(shape(withSourceInfo.get(file.proto.name)!)).toEqual(shape(file.proto))
    }
  })

  layer(inProcessServers(), { timeout: 60_000 })((it) => {
    it.effect("a reflected file carries each RPC's and field's description as its comment", () =>
      Effect.gen(function*() {
        const { org, workflow } = yield* Services
        const { expected } = declared()
        for (const [url, symbol] of [[org, "org.v1beta1.OrgService"], [workflow, "workflow.v1beta1.WorkflowService.CreateOnboardingWorkflow"]] as const) {
          const file = yield* Effect.promise(() => reflectedFile(url, symbol))
          const comments = [...elements([file])].map(([name, { location }]) => [name, flat(location?.leadingComments)])
          expect(comments.length).toBeGreaterThan(5)
          expect(comments).toEqual(comments.map(([name]) => [name, expected.get(name!)]))
        }
      }))
  })
})
