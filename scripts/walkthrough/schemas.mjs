import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/*
 * The field's description where callers read it: /openapi.json and GraphQL introspection. What
 * each field should say is its .proto comment, which the recipe's comment command wrote from the
 * domain and which test/transports/proto-comments.test.ts holds equal to it. What the other
 * fields said before is in the committed OpenAPI client types, which the recipe regenerates.
 */

const camel = (name) => name.replace(/_(\w)/g, (_, letter) => letter.toUpperCase())

/** `message`'s fields in `file` by JSON name, each with its leading comment as one line. */
const protoDescriptions = (scratch, file, message) => {
  const lines = readFileSync(join(scratch, "proto", file), "utf8").split("\n")
  const start = lines.findIndex((line) => line.startsWith(`message ${message} {`))
  const described = new Map()
  let comment = []
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("}")) break
    const text = /^\s*\/\/ ?(.*)$/.exec(line)
    const field = /^\s*(?:optional |repeated )?[\w.]+ (\w+) = \d+;/.exec(line)
    if (text) comment.push(text[1].trim())
    else if (field) {
      described.set(camel(field[1]), comment.join(" "))
      comment = []
    }
  }
  if (!described.has("nickname") || described.get("nickname") === "") {
    throw new Error(`proto/${file}: ${message}.nickname has no comment (the recipe's comment command writes it)`)
  }
  return described
}

/** Every object schema in `node` (components, bodies, responses) whose properties include fullName. */
const profileShapes = (node, path = "#", found = []) => {
  if (Array.isArray(node)) node.forEach((item, i) => profileShapes(item, `${path}/${i}`, found))
  else if (node !== null && typeof node === "object") {
    if (node.properties?.fullName !== undefined) found.push({ path, schema: node })
    for (const [key, value] of Object.entries(node)) profileShapes(value, `${path}/${key}`, found)
  }
  return found
}

const descriptionOf = (property) =>
  property?.description ?? (property?.anyOf ?? property?.oneOf ?? property?.allOf ?? []).map((part) => part.description).find(Boolean)

const openApiCheck = async (url, described, component) => {
  const document = await (await fetch(`${url}/openapi.json`)).json()
  const wrong = []
  if (component !== undefined && document.components?.schemas?.[component] === undefined) {
    wrong.push(`components.schemas has no ${component} (it has ${Object.keys(document.components?.schemas ?? {}).join(", ")})`)
  }
  const shapes = profileShapes(document)
  if (shapes.length === 0) wrong.push("no schema with fullName")
  for (const { path, schema } of shapes) {
    const nickname = schema.properties.nickname
    if (nickname === undefined) wrong.push(`${path}: no nickname (it has ${Object.keys(schema.properties).join(", ")})`)
    else if (descriptionOf(nickname) !== described.get("nickname")) {
      wrong.push(`${path}/properties/nickname: described "${descriptionOf(nickname)}", not "${described.get("nickname")}"`)
    }
  }
  if (wrong.length > 0) throw new Error(wrong.join("\n"))
}

const graphqlCheck = async (url, described) => {
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
    body: JSON.stringify({ query: "{ __schema { types { name fields { name description } inputFields { name description } } } }" })
  })
  const body = await response.json()
  if (body.errors !== undefined) throw new Error(`introspection failed: ${JSON.stringify(body.errors)}`)
  const wrong = []
  const types = body.data.__schema.types
    .map((type) => ({ name: type.name, fields: type.fields ?? type.inputFields ?? [] }))
    .filter((type) => type.fields.some((field) => field.name === "fullName"))
  if (types.length === 0) wrong.push("no type with fullName")
  for (const type of types) {
    const nickname = type.fields.find((field) => field.name === "nickname")
    if (nickname === undefined) wrong.push(`${type.name}: no nickname`)
    else if (nickname.description !== described.get("nickname")) wrong.push(`${type.name}.nickname: described "${nickname.description}", not "${described.get("nickname")}"`)
  }
  if (wrong.length > 0) throw new Error(wrong.join("\n"))
  return types.map((type) => type.name)
}

/** Each `@description` and `@example` line of the committed OpenAPI client types is still in the regenerated ones. */
const typesKept = (scratch) => {
  const folder = "test/e2e/support/openapi"
  const said = (text) => text.split("\n").map((line) => line.trim()).filter((line) => /@(description|example)\b/.test(line))
  const lost = []
  for (const name of readdirSync(join(scratch, folder)).filter((file) => file.endsWith(".d.ts"))) {
    const now = said(readFileSync(join(scratch, folder, name), "utf8"))
    for (const line of said(execFileSync("git", ["show", `HEAD:${folder}/${name}`], { cwd: scratch }).toString())) {
      const at = now.indexOf(line)
      if (at === -1) lost.push(`${name}: ${line}`)
      else now.splice(at, 1)
    }
  }
  if (lost.length > 0) throw new Error(`${lost.length} lines of the documents' descriptions and examples are gone:\n${lost.join("\n")}`)
}

export const schemaChecks = (scratch, urls) => {
  const profile = () => protoDescriptions(scratch, "profile/v1beta1/profile.proto", "Profile")
  const workflowPart = () => protoDescriptions(scratch, "workflow/v1beta1/workflow.proto", "Profile")
  return [
    ["/openapi.json (profile port): the Profile component is there, each profile schema carries nickname described", () =>
      openApiCheck(urls.profile, profile(), "Profile")],
    ["/openapi.json (workflow port): the request's profile carries nickname described", () => openApiCheck(urls.workflow, workflowPart(), undefined)],
    ["/openapi.json: the other fields keep their descriptions and examples (the regenerated client types lose none)", () => typesKept(scratch)],
    ["GraphQL introspection (profile port): each profile type and input describes nickname", () => graphqlCheck(urls.profile, profile())],
    ["GraphQL introspection (workflow port): the request's profile input describes nickname", () => graphqlCheck(urls.workflow, workflowPart())]
  ]
}
