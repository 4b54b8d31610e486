import type { DescMessage, DescService } from "@bufbuild/protobuf"
import { type ConnectRouter, createServiceImplSpec } from "@connectrpc/connect"
import { InvalidArgument } from "../../../domain/Errors.js"
import { connectError } from "../../ErrorTable.js"
import { spelledIn } from "../../../domain/FieldNames.js"
import { jsonRead } from "../../connect/SentJson.js"
import { type JsonBounds, jsonBoundsBroken } from "../../limits/JsonBounds.js"
import { notUtf8, strictUtf8 } from "./lenientUtf8.js"
import { onlyKnownFields, unknownFields } from "./ignoredUnknownFields.js"
import { holdsTimestamp, timestampViolations } from "./rolledOverTimestamps.js"

/**
 * The router's JSON read options for one method: strict UTF-8 (correction 3), unknown fields and
 * values of the wrong JSON type refused by their paths (corrections 10 and 11) and its Timestamps
 * checked (correction 4), and the JSON bounds (JSON_MAX_DEPTH, JSON_MAX_VALUES) held before
 * anything parses the text — the decoder is the one seam connect-es gives between a JSON message's bytes and its parser.
 */
export const jsonOptionsFor = (input: DescMessage, bounds: JsonBounds) => {
  const checksTimestamps = holdsTimestamp(input)
  return {
    // What proto3 JSON says (contract §3.2); the decoder below refuses first, naming the field's path.
    ignoreUnknownFields: false,
    textDecoder: {
      decode: (bytes?: Uint8Array): string => {
        const broken = bytes === undefined ? undefined : jsonBoundsBroken(bytes, bounds)
        if (broken !== undefined) throw connectError("ResourceExhausted", broken)
        let text: string
        try {
          text = strictUtf8.decode(bytes)
        } catch {
          throw connectError("InvalidArgument", notUtf8)
        }
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return text // connect-es refuses malformed JSON itself
        }
        const violations = onlyKnownFields(input, json) ? [] : unknownFields(input, json)
        if (checksTimestamps) violations.push(...timestampViolations(input, json))
        if (violations.length === 0) {
          jsonRead(json)
          return text
        }
        const refusal = InvalidArgument.fromViolations(violations)
        throw connectError("InvalidArgument", refusal.message, refusal.fieldsNamed(spelledIn(json)))
      }
    }
  } as const
}

/** A router that registers each method on its own, with that method's JSON read options. */
export const strictRouter = (router: ConnectRouter, bounds: JsonBounds): ConnectRouter => {
  const strict: ConnectRouter = {
    handlers: router.handlers,
    service: (service: DescService, implementation, options) => {
      const spec = createServiceImplSpec(service, implementation)
      for (const method of service.methods) {
        router.rpc(method, spec.methods[method.localName]!.impl as never, {
          ...options,
          jsonOptions: jsonOptionsFor(method.input, bounds)
        })
      }
      return strict
    },
    rpc: (method, implementation, options) => {
      router.rpc(method, implementation, { ...options, jsonOptions: jsonOptionsFor(method.input, bounds) })
      return strict
    }
  }
  return strict
}
