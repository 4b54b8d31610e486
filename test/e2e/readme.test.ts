import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
// @ts-expect-error a plain script, without declarations
import { lines as buildLines, stages as buildStages } from "../../scripts/build.mjs"
import { Services } from "../support/Services.js"
import { deployment, ServicesLive } from "./support/Servers.js"
import { examples, expectAnswered, readme } from "./support/ReadmeExamples.js"
import { freePort, startProcess, stopProcess } from "./support/Processes.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../", import.meta.url))

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

describe(`README examples run against the services (${deployment})`, () => {
  layer(ServicesLive, { timeout: 180_000, excludeTestServices: true })((it) => {
    for (const example of ["first", "connect", "grpc", "grpc-web", "rest", "graphql"].flatMap(examples)) {
      it.effect(example.title, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          yield* Effect.promise(() => expectAnswered(example, urls))
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

  plainIt("makes a first call in each style on its first screen (its length: test/docs/doc-lengths.test.ts)", () => {
    const styles = examples("first").map((e) => e.title.split(":")[0])
    expect(styles).toEqual(expect.arrayContaining(["Connect (JSON over HTTP)", "gRPC", "gRPC-Web", "REST", "GraphQL"]))
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

/** The README's Quick start: the build lines its prose quotes, and its sample of what the process prints. */
const quickStart = readme.split("## Quick start")[1]!.split("\n## ")[0]!
const buildShown = [...quickStart.replace(/\s+/g, " ").matchAll(/`(build: [^`]+)`/g)].map(([, line]) => line!)
const firstStart = /\n```\n(\[[\s\S]*?listening on[^\n]*\n)```/.exec(quickStart)![1]!.trimEnd().split("\n")

/** A line with what changes from run to run made alike: clock times, fiber ids, durations, counts. */
const alike = (line: string) =>
  line.replace(/\x1b\[[0-9;]*m/g, "").replace(/^\[[0-9:.]+\]/, "[time]").replace(/\(#\d+\)/, "(#n)").replace(/\d+(\.\d+)?/g, "N")

describe("README: the first start prints what the Quick start shows", () => {
  plainIt("each build line is one scripts/build.mjs prints", () => {
    type Stage = { readonly doing: string }
    const possible = new Set((buildStages as ReadonlyArray<Stage>).flatMap((stage) =>
      [buildLines.started(stage), buildLines.running(stage, 5_000), buildLines.ended(stage, 5_000), buildLines.done(5_000)].map(alike)
    ))
    expect(buildShown.length).toBeGreaterThan(1)
    expect(buildShown.map(alike).filter((line) => !possible.has(line))).toEqual([])
  })

  plainIt("the process's lines on a new data directory, in order, the ports' in any", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "readme-first-start-"))
    const ports = await Promise.all(Array.from({ length: 4 }, freePort))
    const running = await startProcess("all", {
      ...Object.fromEntries(["ORG_PORT", "PROFILE_PORT", "LICENSE_PORT", "WORKFLOW_PORT"].map((name, i) => [name, String(ports[i])])),
      DATA_DIR: join(dataDir, "data"),
      LOG_FORMAT: "pretty",
      ACCESS_LOG: "off"
    }, 4)
    try {
      // As printed, with this run's data directory written as the README's (`alike` takes the ports).
      const printed = running.output().trimEnd().split("\n").map((line) => line.replace(join(dataDir, "data"), "./.data"))
      const [printedFirst, printedPorts] = [printed.slice(0, -4), printed.slice(-4)]
      expect(printedFirst.map(alike)).toEqual(firstStart.slice(0, -4).map(alike))
      expect(printedPorts.map(alike).sort()).toEqual(firstStart.slice(-4).map(alike).sort())
    } finally {
      await stopProcess(running)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
