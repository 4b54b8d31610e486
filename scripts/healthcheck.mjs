// The image's HEALTHCHECK (Dockerfile): GET /readyz on the port of the command the container runs,
// with nothing but node. The command is read from the container's processes (`dist/main/<command>.js`),
// its port as the command reads it (docs/configuration.md): PORT, then the service's own variable,
// then its default; `all` is probed on the workflow port (one process, one readiness for its four
// ports). `migrate` has no port: it is healthy while it runs. Exit 0 healthy, 1 not.
import { readdirSync, readFileSync } from "node:fs"
import { request } from "node:http"

const ports = { org: ["ORG_PORT", 9090], profile: ["PROFILE_PORT", 9091], license: ["LICENSE_PORT", 9092], workflow: ["WORKFLOW_PORT", 8081] }

const command = readdirSync("/proc")
  .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid)
  .map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").match(/dist\/main\/(\w+)\.js/)?.[1]
    } catch {
      return undefined
    }
  })
  .find((found) => found !== undefined)

if (command === "migrate") process.exit(0)
if (command === undefined || !(command === "all" || command in ports)) {
  console.error(`healthcheck: no command of the image is running (found ${command ?? "none"})`)
  process.exit(1)
}
const [variable, fallback] = ports[command === "all" ? "workflow" : command]
const port = Number((command === "all" ? undefined : process.env.PORT) || process.env[variable] || fallback)
const bound = process.env.HOST ?? "127.0.0.1"
const host = bound === "0.0.0.0" ? "127.0.0.1" : bound === "::" ? "::1" : bound

const probe = request({ host, port, path: "/readyz", timeout: 8000 }, (response) => {
  response.resume()
  if (response.statusCode !== 200) console.error(`healthcheck: /readyz on ${host}:${port} answered ${response.statusCode}`)
  process.exit(response.statusCode === 200 ? 0 : 1)
})
probe.on("timeout", () => probe.destroy(new Error("no answer in 8 s")))
probe.on("error", (error) => {
  console.error(`healthcheck: /readyz on ${host}:${port}: ${error.message}`)
  process.exit(1)
})
probe.end()
