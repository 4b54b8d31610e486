import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { systemTool } from "../support/SystemTools.js"

// Docker and docker-compose as the container test drives them (containers.slow.test.ts).

export const root = fileURLToPath(new URL("../../", import.meta.url))
const run = promisify(execFile)

/** The image compose.yaml runs. */
export const image = "onboarding-services:latest"

/**
 * Whether docker and docker-compose are installed and a daemon answers; undefined (a skip) when
 * not, a thrown error under REQUIRE_SYSTEM_TOOLS=1 (SystemTools.ts).
 */
export const dockerAvailable = async (): Promise<boolean> => {
  if (systemTool("docker") === undefined || systemTool("docker-compose") === undefined) return false
  const answered = await run("docker", ["info", "--format", "{{.ServerVersion}}"]).then(() => true, () => false)
  if (!answered && process.env["REQUIRE_SYSTEM_TOOLS"] === "1") {
    throw new Error("no docker daemon answers, and REQUIRE_SYSTEM_TOOLS=1 (CI) does not allow the container tests to skip")
  }
  if (!answered) console.warn("no docker daemon answers: the container tests are skipped")
  return answered
}

export const docker = async (...args: ReadonlyArray<string>): Promise<string> =>
  (await run("docker", [...args], { cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 })).stdout.trim()

/** A build without its layers cached (a new lock file) runs `npm ci` twice: a ceiling of its own. */
const dockerBuild = async (...args: ReadonlyArray<string>) =>
  await run("docker", ["build", ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 1_200_000 })

/** `docker` whose failure is an answer: its exit code and output. */
export const dockerOutcome = (...args: ReadonlyArray<string>) =>
  run("docker", [...args], { cwd: root, timeout: 120_000 }).then(
    ({ stderr, stdout }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: `${error.stdout}${error.stderr}` })
  )

/**
 * The image from the project's Dockerfile, unchanged, on the stand-in base
 * (test/containers/stand-in-base.sh): built with the host's network, the registry's name given the
 * address this machine resolves it to, so that `npm ci` inside reaches it as `npm ci` here does.
 */
export const buildImage = async () => {
  const registry = new URL((await run("npm", ["config", "get", "registry"], { cwd: root })).stdout.trim()).hostname
  const address = (await run("getent", ["hosts", registry])).stdout.trim().split(/\s+/)[0]
  const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(await run("cat", ["Dockerfile"], { cwd: root }).then((r) => r.stdout))![1]!
  await run("bash", ["test/containers/stand-in-base.sh", base], { cwd: root, timeout: 600_000 })
  await dockerBuild("--network", "host", ...(address === undefined ? [] : ["--add-host", `${registry}:${address}`]), "-t", image, ".")
}

/**
 * compose.yaml with test/containers/compose.host-network.yaml over it, as one file: rendered by
 * `docker-compose config`, less each service's published ports. A host-network container has no
 * ports to publish, and the compose of Debian (1.29) cannot drop a list from an override, nor create
 * a host-network container that has one.
 */
export const renderCompose = async (file: string, env: Record<string, string>) => {
  const rendered = await run("docker-compose", ["-f", "compose.yaml", "-f", "test/containers/compose.host-network.yaml", "config"], {
    cwd: root,
    env: { ...process.env, ...env }
  })
  const yaml = createRequire(import.meta.url)("js-yaml") as { load: (text: string) => unknown }
  const config = yaml.load(rendered.stdout) as { services: Record<string, Record<string, unknown>> }
  for (const service of Object.values(config.services)) delete service["ports"]
  writeFileSync(file, JSON.stringify(config, null, 2))
}

export const compose = async (project: string, file: string, ...args: ReadonlyArray<string>) =>
  (await run("docker-compose", ["-p", project, "-f", file, ...args], { cwd: root, timeout: 240_000 })).stdout.trim()

/** The container's state, as `docker inspect` tells it. */
export const inspect = async (container: string) =>
  JSON.parse(await docker("inspect", "--format", "{{json .State}}", container)) as {
    readonly Status: string
    readonly Pid: number
    readonly ExitCode: number
    readonly Health?: { readonly Status: string }
  }

export const restartCount = async (container: string) => Number(await docker("inspect", "--format", "{{.RestartCount}}", container))

/** Polls `check` until it holds, or fails naming `what` after `millis` (a ceiling, not a timing). */
export const eventually = async (what: string, check: () => Promise<boolean>, millis = 120_000) => {
  const end = Date.now() + millis
  while (Date.now() < end) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`${what}: not within ${millis / 1000} s`)
}

export const ready = (url: string) => fetch(`${url}/readyz`).then((reply) => reply.status === 200, () => false)
