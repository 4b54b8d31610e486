/** Where each service answers, as the page that serves the console says (`/console/config.json`). */
export interface Services {
  readonly org: string
  readonly profile: string
  readonly license: string
  readonly workflow: string
}

/** A refusal or failure, as the REST error body tells it (`{code, message}`). */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
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

/** One REST call: JSON in and out, the token when there is one; anything but 200 is an ApiError. */
export const rest = async <A>(base: string, path: string, body?: unknown): Promise<A> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  const token = apiToken.get()
  if (token !== "") headers["authorization"] = `Bearer ${token}`
  let response: Response
  try {
    response = await fetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch {
    throw new ApiError(0, `could not reach ${base}`)
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (response.ok) return parsed as A
  const message = typeof parsed === "object" && parsed !== null && "message" in parsed ? String(parsed.message) : response.statusText
  throw new ApiError(response.status, message)
}

/**
 * A refusal's message names each broken rule's field (`license.end: must be after ...; org.name:
 * must not be blank`): the rules by field path, and whatever names no field.
 */
export const fieldMessages = (message: string): { readonly fields: Map<string, string>; readonly rest: Array<string> } => {
  const fields = new Map<string, string>()
  const rest: Array<string> = []
  for (const part of message.split(/;\s+(?=[\w.]+: )/)) {
    const named = /^([\w.]+): (.*)$/s.exec(part)
    if (named === null) rest.push(part)
    else fields.set(named[1]!.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()), named[2]!)
  }
  return { fields, rest }
}
