/** The services the console calls: each one's origin, as `/console/config.json` says ("" for this page's own). */
export type ServiceName = "org" | "profile" | "license" | "workflow"
export type Services = { readonly [name in ServiceName]: string }

/** The services of `/console/config.json` (`{"services": {...}}`), when it gives each one's origin. */
export const servicesIn = (config: unknown): Services | undefined => {
  if (typeof config !== "object" || config === null || !("services" in config)) return undefined
  const { services } = config
  if (typeof services !== "object" || services === null) return undefined
  if (!("org" in services && "profile" in services && "license" in services && "workflow" in services)) return undefined
  const { license, org, profile, workflow } = services
  return typeof org === "string" && typeof profile === "string" && typeof license === "string" && typeof workflow === "string"
    ? { org, profile, license, workflow }
    : undefined
}

/**
 * A refusal or failure, as the REST error body tells it (google.rpc.Status JSON: `{code, message,
 * details}`); `details` is read by what needs it (Violations.ts), the message only shown.
 */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly tokenSent: boolean, readonly details: ReadonlyArray<unknown> = []) {
    super(message)
  }
}

/** No answer at all: the port is down, or the browser withheld the answer (CORS). */
export class Unreachable extends Error {
  constructor(readonly service: ServiceName, readonly origin: string) {
    super(`could not reach the ${service} service at ${origin}`)
  }
}

const tokenKey = "onboarding-api-token"

/** The API token, when the server has one: kept for this tab only (sessionStorage), never in a URL. */
export const apiToken = {
  get: (): string => sessionStorage.getItem(tokenKey) ?? "",
  set: (token: string): void => {
    if (token === "") sessionStorage.removeItem(tokenKey)
    else sessionStorage.setItem(tokenKey, token)
  }
}

/** One REST call to one service: JSON in and out, the token when there is one; anything but 200 is thrown. */
export const rest = async <A>(services: Services, service: ServiceName, path: string, body?: unknown): Promise<A> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  const token = apiToken.get()
  if (token !== "") headers["authorization"] = `Bearer ${token}`
  const origin = services[service]
  let response: Response
  try {
    response = await fetch(`${origin}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch {
    throw new Unreachable(service, origin === "" ? location.origin : origin)
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (response.ok) return parsed as A
  const refusal = typeof parsed === "object" && parsed !== null ? parsed : {}
  const message = "message" in refusal ? String(refusal.message) : response.statusText
  const details: unknown = "details" in refusal ? refusal.details : []
  throw new ApiError(response.status, message, token !== "", Array.isArray(details) ? details : [])
}

/** A path segment or query value as the REST paths take it. */
export const segment = (text: string) => encodeURIComponent(text)
