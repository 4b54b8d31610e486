import * as os from "node:os"
import type { AllowedHosts } from "../transports/limits/AllowedHosts.js"
import type { SettingsValues } from "./Settings.js"
import { urlHost } from "./Variables.js"

/** What the process can know of the names it is reached by: the machine's addresses and its name. */
export interface Machine {
  readonly addresses: ReadonlyArray<string>
  readonly hostname: string
}

export const thisMachine = (): Machine => ({
  addresses: Object.values(os.networkInterfaces()).flatMap((each) => (each ?? []).map((address) => address.address)),
  hostname: os.hostname()
})

const wildcards = new Set(["0.0.0.0", "[::]"])
const loopback = ["localhost", "127.0.0.1", "[::1]"]

/**
 * The host names the ports answer to: `localhost` and the address they are bound to (`HOST`),
 * and whatever ALLOWED_HOSTS adds (`*`: any). Bound to every address (`HOST=0.0.0.0` or `::`),
 * they answer to each address the machine has when it starts (loopback included) and to its host
 * name, the names the process can know; a name given by DNS or a load balancer
 * (`api.example.com`, a Kubernetes service) must be listed in ALLOWED_HOSTS, or `*` set where
 * something in front checks the name. Bound to `localhost`, to both its loopback addresses.
 */
export const allowedHostNames = (settings: SettingsValues, machine: Machine = thisMachine()): AllowedHosts => {
  const bound = urlHost(settings.host) ?? settings.host
  const defaults = wildcards.has(bound)
    ? [...loopback, ...machine.addresses, machine.hostname]
    : bound === "localhost"
    ? loopback
    : [bound, "localhost"]
  const names = [...defaults, ...settings.allowedHosts.names].flatMap((name) => urlHost(name) ?? [])
  return { any: settings.allowedHosts.any, names: [...new Set(names)] }
}
