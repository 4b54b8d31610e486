import { create, createRegistry, type DescFile, fromBinary, toBinary } from "@bufbuild/protobuf"
import { base64Decode } from "@bufbuild/protobuf/wire"
import { type FileDescriptorProto, FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt"
import type { ServiceImpl } from "@connectrpc/connect"
import { fileDescriptorSetWithSourceInfo } from "../../gen/source_info_pb.js"
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js"
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js"

/**
 * gRPC server reflection (v1 and v1alpha: grpcurl and older clients still ask for v1alpha), answered
 * from the descriptors the generated code embeds, so clients need no .proto files. protoc-gen-es
 * embeds them without their comments; `npm run generate` also writes the same files' descriptors
 * with their source info (gen/source_info_pb.ts), and those are what a file's answer carries, so
 * a client shows each RPC's and field's comment: the description declared in the domain and the
 * operations tables (test/transports/proto-comments.test.ts). A file without them (the
 * well-known types) is served as embedded.
 */

/** The descriptors with source info, by file name; each describes what the generated code does (the same .proto, one `npm run generate`). */
export const withSourceInfo: ReadonlyMap<string, FileDescriptorProto> = new Map(
  fromBinary(FileDescriptorSetSchema, base64Decode(fileDescriptorSetWithSourceInfo)).file.map((file) => [file.name, file])
)

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest
type ResponseBody = v1.ServerReflectionResponse["messageResponse"]

const withDependencies = (roots: ReadonlyArray<DescFile>): Map<string, DescFile> => {
  const files = new Map<string, DescFile>()
  const visit = (file: DescFile) => {
    if (files.has(file.name + ".proto")) return
    files.set(file.name + ".proto", file)
    file.dependencies.forEach(visit)
  }
  roots.forEach(visit)
  return files
}

const notFound = (message: string): ResponseBody => ({
  case: "errorResponse",
  value: create(v1.ErrorResponseSchema, { errorCode: 5, errorMessage: message })
})

const makeAnswer = (files: ReadonlyArray<DescFile>, serviceNames: ReadonlyArray<string>) => {
  const byName = withDependencies(files)
  const registry = createRegistry(...byName.values())

  /** The file and everything it imports, as serialized FileDescriptorProtos, the file itself first. */
  const fileResponse = (file: DescFile): ResponseBody => ({
    case: "fileDescriptorResponse",
    value: create(v1.FileDescriptorResponseSchema, {
      fileDescriptorProto: [...withDependencies([file]).values()].map((f) =>
        toBinary(FileDescriptorProtoSchema, withSourceInfo.get(f.proto.name) ?? f.proto)
      )
    })
  })

  /** A symbol is a type or service, or a member of one (a method, field or enum value). */
  const fileOfSymbol = (symbol: string): DescFile | undefined => {
    const direct = registry.get(symbol)
    if (direct !== undefined) return direct.file
    const parent = symbol.slice(0, Math.max(0, symbol.lastIndexOf(".")))
    return registry.get(parent)?.file
  }

  return (request: Request): ResponseBody => {
    const { case: kind, value } = request.messageRequest
    switch (kind) {
      case "listServices":
        return {
          case: "listServicesResponse",
          value: create(v1.ListServiceResponseSchema, { service: serviceNames.map((name) => ({ name })) })
        }
      case "fileByFilename": {
        const file = byName.get(value)
        return file === undefined ? notFound(`file ${value} not found`) : fileResponse(file)
      }
      case "fileContainingSymbol": {
        const file = fileOfSymbol(value)
        return file === undefined ? notFound(`symbol ${value} not found`) : fileResponse(file)
      }
      case "allExtensionNumbersOfType":
        return registry.getMessage(value) === undefined
          ? notFound(`type ${value} not found`)
          : { case: "allExtensionNumbersResponse", value: create(v1.ExtensionNumberResponseSchema, { baseTypeName: value }) }
      case "fileContainingExtension":
        return notFound(`extension ${value.containingType}(${value.extensionNumber}) not found`)
      default:
        return { case: "errorResponse", value: create(v1.ErrorResponseSchema, { errorCode: 3, errorMessage: "empty request" }) }
    }
  }
}

/** `files`: the services' generated files; `serviceNames`: what `list` reports on this port. */
export const reflectionServices = (files: ReadonlyArray<DescFile>, serviceNames: ReadonlyArray<string>) => {
  const answer = makeAnswer(files, serviceNames)
  const v1Impl: ServiceImpl<typeof v1.ServerReflection> = {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield create(v1.ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: answer(request)
        })
      }
    }
  }
  // The two versions are the same messages under two package names.
  const v1alphaImpl: ServiceImpl<typeof v1alpha.ServerReflection> = {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield create(v1alpha.ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: answer(request) as v1alpha.ServerReflectionResponse["messageResponse"]
        })
      }
    }
  }
  return { v1: v1Impl, v1alpha: v1alphaImpl }
}
