import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Services } from "../support/Services.js"
import { deployment, ServicesLive } from "./support/Servers.js"
import type { ServiceUrls } from "./support/StyleClient.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../", import.meta.url))
/** The README, and the page of every example it links to: both are run here. */
const documents = ["README.md", "docs/examples.md"]
const readme = documents.map((file) => readFileSync(`${root}${file}`, "utf8")).join("\n")

interface Example {
  readonly title: string
  readonly command: string
  readonly expected: ReadonlyArray<string>
}

/**
 * The ```sh blocks between `<!-- examples:NAME -->` and `<!-- /examples:NAME -->`: `# title`
 * lines, the command, then its answer as `# ` lines.
 */
const examples = (name: string): Array<Example> => {
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

/**
 * The README's consumer block (scripts/check-client-package.sh runs it whole in an empty
 * project): the program it saves as example.ts, and what it prints (the `# ` lines ending it).
 */
const consumerBlock = /```sh\n([\s\S]*?)```/.exec(readme.split("<!-- examples:consumer -->")[1]!)![1]!
const consumerExample = /cat > example\.ts <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(consumerBlock)![1]!
const consumerLines = consumerBlock.trimEnd().split("\n")
const consumerPrints = consumerLines
  .slice(consumerLines.length - [...consumerLines].reverse().findIndex((line) => !line.startsWith("# ")))
  .map((line) => line.slice(2))

/** What the README's consumer block compiles its program under: a strict NodeNext project. */
const tsc = `${root}node_modules/typescript/bin/tsc`
const strictNodeNext = ["--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node"]

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

describe(`README examples run against the services (${deployment})`, () => {
  layer(ServicesLive, { timeout: 180_000, excludeTestServices: true })((it) => {
    for (const example of ["first", "connect", "grpc", "grpc-web", "rest", "graphql"].flatMap(examples)) {
      it.effect(example.title, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const answer = yield* Effect.promise(() => answerOf(onPorts(example.command, urls)))
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
        }))
    }

    it.effect("the consumer block's program type-checks (strict, NodeNext) and prints what the block says in each style", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        // Saved in the repository, so `onboarding-services-client` resolves to the workspace package.
        const file = `${root}.readme-clients-example-${process.pid}`
        writeFileSync(`${file}.ts`, consumerExample.replaceAll("http://127.0.0.1:9090", urls.org))
        const printed = yield* Effect.promise(async () => {
          await run(process.execPath, [tsc, ...strictNodeNext, `${file}.ts`], { cwd: root })
          return run(process.execPath, [`${file}.js`], { cwd: root })
        }).pipe(Effect.ensuring(Effect.sync(() => {
          rmSync(`${file}.ts`, { force: true })
          rmSync(`${file}.js`, { force: true })
        })))
        expect(consumerPrints).toEqual(["Acme", "Acme", "NotFound", "Acme"])
        expect(printed.stdout.trim().split("\n")).toEqual(consumerPrints)
      }))
  })
})

describe("README", () => {
  plainIt("documents every operation in the Connect, gRPC, REST and GraphQL examples", () => {
    const operations = ["CreateOrg", "GetOrg", "CreateProfile", "GetProfile", "CreateLicense", "GetLicense", "CreateOnboardingWorkflow", "GetOnboardingWorkflow"]
    for (const section of ["connect", "grpc", "rest", "graphql"]) {
      const titles = examples(section).map((e) => e.title.split(" ")[0])
      for (const operation of operations) expect(titles, `${section} ${operation}`).toContain(operation)
    }
  })

  plainIt("makes a first call in each style on its first screen, then links out", () => {
    const styles = examples("first").map((e) => e.title.split(":")[0])
    expect(styles).toEqual(expect.arrayContaining(["Connect (JSON over HTTP)", "gRPC", "gRPC-Web", "REST", "GraphQL"]))
    const own = readFileSync(`${root}README.md`, "utf8")
    // The first screen, the ways to run it, and the one block a TypeScript caller runs; the rest links out.
    expect(own.split("\n").length).toBeLessThan(250)
  })

  plainIt("links only to files that exist, from the README and every page under docs/", () => {
    const pages = ["README.md", ...readdirSync(`${root}docs`).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
    const broken = pages.flatMap((page) => {
      const text = readFileSync(`${root}${page}`, "utf8")
      const base = new URL(page, `file://${root}`)
      return [...text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)]
        .map(([, target]) => target!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !existsSync(fileURLToPath(new URL(target, base))))
        .map((target) => `${page} -> ${target}`)
    })
    expect(broken).toEqual([])
  })
})
