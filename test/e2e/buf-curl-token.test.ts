import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { startAllInOne, stopProcess } from "./support/Processes.js"

/**
 * The gRPC examples of docs/examples.md that carry a bearer token, run with `buf curl` against the
 * all-in-one process started with that API_TOKEN: with SCHEMA_ACCESS open (the default), `-H`
 * alone works, reflection being open; with SCHEMA_ACCESS=token, reflection needs the token too,
 * and the example with `--reflect-header` works where `-H` alone does not. (readme.test.ts runs
 * the same examples against services without a token, where the headers change nothing.)
 */

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../", import.meta.url))
const examplesPage = readFileSync(`${root}docs/examples.md`, "utf8")

interface Example {
  readonly title: string
  readonly command: string
  readonly expected: string
}

/** The ```sh blocks of the gRPC examples whose command sends `Authorization: Bearer`. */
const tokenExamples: ReadonlyArray<Example> = [
  ...examplesPage.split("<!-- examples:grpc -->")[1]!.split("<!-- /examples:grpc -->")[0]!.matchAll(/```sh\n([\s\S]*?)```/g)
].flatMap(([, block]) => {
  const lines = block!.trimEnd().split("\n")
  const start = lines.findIndex((line) => !line.startsWith("#"))
  const end = lines.findIndex((line, i) => i > start && line.startsWith("# "))
  const command = lines.slice(start, end).join("\n")
  return command.includes("Authorization: Bearer")
    ? [{ title: lines.slice(0, start).map((line) => line.slice(2)).join(" "), command, expected: lines.slice(end).map((line) => line.slice(2)).join("\n") }]
    : []
})

const tokenOf = (command: string) => /Authorization: Bearer (\S+?)'/.exec(command)![1]!

/** stdout, or stderr when stdout is empty, and whether the command succeeded. */
const answerOf = async (command: string) => {
  const result = await run("bash", ["-c", command], { cwd: root, timeout: 30_000 }).then(
    (done) => ({ ...done, ok: true }),
    (error: { stdout: string; stderr: string }) => ({ ...error, ok: false })
  )
  const stderr = result.stderr.split("\n").filter((line) => !line.startsWith("npm warn")).join("\n")
  return { ok: result.ok, text: result.stdout.trim() === "" ? stderr.trim() : result.stdout.trim() }
}

/** The org the examples read, made over REST with the token. */
const createAcme = async (url: string, token: string) => {
  const reply = await fetch(`${url}/orgs/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "Acme" })
  })
  expect(reply.status).toBe(200)
}

const withReflectHeader = (example: Example) => example.command.includes("--reflect-header")

describe("buf curl with API_TOKEN set, as docs/examples.md shows it", () => {
  it("the page has the two token examples: -H alone, and -H with --reflect-header, with the same token", () => {
    expect(tokenExamples.map(withReflectHeader)).toEqual([false, true])
    expect(new Set(tokenExamples.map((example) => tokenOf(example.command))).size).toBe(1)
    for (const example of tokenExamples) expect(example.command).toContain("org.v1beta1.OrgService/GetOrg")
  })

  for (const schemaAccess of ["open", "token"] as const) {
    it(`SCHEMA_ACCESS=${schemaAccess}: ${schemaAccess === "open" ? "both examples answer" : "--reflect-header answers; -H alone cannot find the service"}`, async () => {
      const token = tokenOf(tokenExamples[0]!.command)
      const server = await startAllInOne({ ACCESS_LOG: "off", API_TOKEN: token, ...(schemaAccess === "token" ? { SCHEMA_ACCESS: "token" } : {}) })
      try {
        await createAcme(server.org, token)
        for (const example of tokenExamples) {
          const answer = await answerOf(example.command.replaceAll("http://127.0.0.1:9090", server.org))
          if (schemaAccess === "open" || withReflectHeader(example)) {
            expect({ title: example.title, ok: answer.ok }).toEqual({ title: example.title, ok: true })
            expect(JSON.parse(answer.text)).toEqual(JSON.parse(example.expected))
          } else {
            expect({ title: example.title, ok: answer.ok }).toEqual({ title: example.title, ok: false })
            expect(answer.text).toContain(`failed to find service named "org.v1beta1.OrgService"`)
          }
        }
        // Without the token the call itself is refused either way: unauthenticated.
        const tokenless = await answerOf(
          tokenExamples[1]!.command.replaceAll(/(-H|--reflect-header) 'Authorization: Bearer \S+' \\\n\s*/g, "").replaceAll("http://127.0.0.1:9090", server.org)
        )
        expect(tokenless.ok).toBe(false)
        expect(tokenless.text).toMatch(schemaAccess === "open" ? /unauthenticated/ : /failed to find service/)
      } finally {
        await stopProcess(server.running)
      }
    }, 120_000)
  }
})
