import { Option, Record } from "effect"
import type { AllowedHosts } from "../transports/limits/AllowedHosts.js"
import type { ConsoleSettings } from "../transports/pages/Console.js"
import type { SettingsValues } from "./Settings.js"

/** The console's view of a process's settings: where its pages find the services, and who may call. */

const consoleServices = { org: 9090, profile: 9091, license: 9092 } as const

/**
 * Where the console's browser reaches each service: its `*_SERVICE_URL`, else the host name the
 * browser used for the console (one this process answers to) at the service's port in this
 * process, or else its default port. The workflow service is the console's own origin. Its
 * Content-Security-Policy lets it call each of those at every host name the process answers to.
 */
export const consoleSettings = (settings: SettingsValues, hosts: AllowedHosts): ConsoleSettings => {
  const services = Record.keys(consoleServices)
  const origin = (name: keyof typeof consoleServices, hostname: string) =>
    Option.getOrElse(
      settings.serviceUrls[name] ?? Option.none(),
      () => `http://${hostname}:${settings.processPorts[name] ?? consoleServices[name]}`
    )
  return {
    origins: (hostname) => {
      const host = hostname ?? hosts.names[0] ?? "localhost"
      return { org: origin("org", host), profile: origin("profile", host), license: origin("license", host), workflow: "" }
    },
    connectTo: [...new Set(services.flatMap((name) => hosts.names.map((host) => origin(name, host))))]
  }
}

/** When this process serves the console, every port of it lets the console's pages call it, at each of its host names. */
export const consoleOrigins = (settings: SettingsValues, hosts: AllowedHosts): ReadonlyArray<string> => {
  const port = settings.processPorts["workflow"]
  return port === undefined ? [] : hosts.names.map((host) => `http://${host}:${port}`)
}
