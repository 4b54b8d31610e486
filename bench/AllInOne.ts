import { freePort, start, type Started } from "./Processes.js"

/**
 * Our all-in-one process (dist/main/all.js), data in memory, on four free loopback ports, with
 * `env` on top of its quiet defaults: started and ready, and its ports' URLs (org, profile,
 * license, workflow).
 */
export const startAllInOne = async (name: string, env: Record<string, string>): Promise<{ server: Started; urls: Array<string> }> => {
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()]
  const server = await start({
    name,
    script: "dist/main/all.js",
    env: {
      DATA_DIR: "memory://", ACCESS_LOG: "off", LOG_LEVEL: "warning",
      ORG_PORT: String(ports[0]), PROFILE_PORT: String(ports[1]), LICENSE_PORT: String(ports[2]), WORKFLOW_PORT: String(ports[3]),
      ...env
    },
    readyUrls: ports.map((port) => `http://127.0.0.1:${port}/readyz`)
  })
  return { server, urls: ports.map((port) => `http://127.0.0.1:${port}`) }
}
