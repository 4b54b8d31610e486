import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { expect } from "vitest"
import type { ServiceUrls } from "./StyleClient.js"

// The README's examples as readme.test.ts runs them against in-process services, and the
// container test (test/containers) against the image's containers.

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../../", import.meta.url))
/** The README, and the page of every example it links to: both are run. */
const documents = ["README.md", "docs/examples.md"]
export const readme = documents.map((file) => readFileSync(`${root}${file}`, "utf8")).join("\n")

export interface Example {
  readonly title: string
  readonly command: string
  readonly expected: ReadonlyArray<string>
}

/**
 * The ```sh blocks between `<!-- examples:NAME -->` and `<!-- /examples:NAME -->`: `# title`
 * lines, the command, then its answer as `# ` lines.
 */
export const examples = (name: string): Array<Example> => {
  const section = readme.split(`<!-- examples:${name} -->`)[1]!.split(`<!-- /examples:${name} -->`)[0]!
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, block]) => {
    const lines = block!.trimEnd().split("\n")
    const start = lines.findIndex((line) => !line.startsWith("#"))
    const end = lines.findIndex((line, i) => i > start && line.startsWith("# "))
    return {
      title: lines.slice(0, start).map((line) => line.slice(2)).join(" "),
      command: lines.slice(start, end).join("\n"),
      expected: lines.slice(end).map((line) => line.slice(2))
    }
  })
}

/** The README's default ports, as the running services' ports. */
const onPorts = (command: string, urls: ServiceUrls) =>
  command
    .replaceAll("http://127.0.0.1:9090", urls.org)
    .replaceAll("http://127.0.0.1:9091", urls.profile)
    .replaceAll("http://127.0.0.1:9092", urls.license)
    .replaceAll("http://127.0.0.1:8081", urls.workflow)

const placeholders: Record<string, RegExp> = {
  "<uuid>": /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  "<timestamp>": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/,
  "<token>": /^[A-Za-z0-9_-]+$/
}

/** The documented answer with its placeholders replaced by what the service really said. */
const filledIn = (expected: unknown, actual: unknown): unknown => {
  if (typeof expected === "string" && placeholders[expected]?.test(String(actual))) return actual
  if (Array.isArray(expected)) return expected.map((item, i) => filledIn(item, Array.isArray(actual) ? actual[i] : undefined))
  if (expected !== null && typeof expected === "object" && actual !== null && typeof actual === "object") {
    return Object.fromEntries(
      Object.entries(expected).map(([key, value]) => [key, filledIn(value, (actual as Record<string, unknown>)[key])])
    )
  }
  return expected
}

const withStatus = (text: string): [string, string | undefined] => {
  const match = /^([\s\S]*[}\]]) (\d{3})$/.exec(text)
  return match === null ? [text, undefined] : [match[1]!, match[2]]
}

const answerOf = async (command: string): Promise<string> => {
  const result = await run("bash", ["-c", command], { cwd: root, timeout: 30_000 }).catch(
    (error: { stdout: string; stderr: string }) => error
  )
  // npx may warn about the local npm configuration on stderr; that is not the command's answer.
  const stderr = result.stderr.split("\n").filter((line) => !line.startsWith("npm warn")).join("\n")
  return result.stdout.trim() === "" ? stderr.trim() : result.stdout.trim()
}

/** Runs the example against `urls` and expects what the README says it prints. */
export const expectAnswered = async (example: Example, urls: ServiceUrls) => {
  const answer = await answerOf(onPorts(example.command, urls))
  if (example.expected[0]!.startsWith("{")) {
    // An answer may end with the HTTP status that `curl -w ' %{http_code}'` printed.
    const [expectedJson, expectedStatus] = withStatus(example.expected.join("\n"))
    const [actualJson, actualStatus] = withStatus(answer)
    const actual: unknown = JSON.parse(actualJson)
    expect(actual).toEqual(filledIn(JSON.parse(expectedJson), actual))
    expect(actualStatus).toBe(expectedStatus)
  } else {
    expect(answer.split("\n")).toEqual(example.expected)
  }
}
