import { Config, ConfigError, Either, Option } from "effect"
import * as net from "node:net"
import { hostOf } from "../transports/limits/AllowedHosts.js"

/**
 * Environment variables, each checked when the process starts: a value that breaks its rule stops
 * the process with one line naming the variable, the value and the rule (see StartupFailure), so a
 * typo is never silently replaced by a default.
 */

/** The longest delay a Node timer takes; a longer one fires at once (TimeoutOverflowWarning). */
export const maxTimerMillis = 2_147_483_647

/** A value as a refusal shows it: as typed, quoted when it holds spaces or controls, cut when long. */
export const shown = (value: string): string => {
  const cut = value.length > 80 ? `${value.slice(0, 80)}...` : value
  return /^[\x21-\x7e]+$/.test(cut) ? cut : JSON.stringify(cut)
}

/** The refusal `NAME=value is not valid: rule`; `value` undefined keeps a secret out of the line. */
export const refusal = (name: string, value: string | undefined, rule: string): ConfigError.ConfigError =>
  ConfigError.InvalidData([name], `${value === undefined ? `${name} (value not shown)` : `${name}=${value}`} is not valid: ${rule}`)

/**
 * A variable that `parse` accepts (returns a value) or refuses (returns undefined). Unset and empty
 * both mean "not given", as for `PORT=` left blank in a compose file. `show` controls how a refused
 * value appears in the message (undefined: not at all).
 */
export const optionalVariable = <A>(
  name: string,
  rule: string,
  parse: (value: string) => A | undefined,
  show: (value: string) => string | undefined = shown
): Config.Config<Option.Option<A>> =>
  Config.option(Config.string(name)).pipe(
    Config.mapOrFail((value) => {
      if (Option.isNone(value) || value.value === "") return Either.right(Option.none())
      const parsed = parse(value.value)
      return parsed === undefined ? Either.left(refusal(name, show(value.value), rule)) : Either.right(Option.some(parsed))
    })
  )

export const variable = <A>(
  name: string,
  fallback: A,
  rule: string,
  parse: (value: string) => A | undefined,
  show?: (value: string) => string | undefined
): Config.Config<A> => optionalVariable(name, rule, parse, show).pipe(Config.map(Option.getOrElse(() => fallback)))

const wholeNumberIn = (min: number, max: number) => (value: string) =>
  /^\d{1,16}$/.test(value) && Number(value) >= min && Number(value) <= max ? Number(value) : undefined

/** A whole number in [min, max], digits only (no sign, no decimals, no spaces). */
export const wholeNumber = (name: string, fallback: number, min: number, max: number): Config.Config<number> =>
  variable(name, fallback, `must be a whole number from ${min} to ${max}`, wholeNumberIn(min, max))

/** A count, size or duration in milliseconds; timers cap the largest one. */
export const positive = (name: string, fallback: number): Config.Config<number> =>
  wholeNumber(name, fallback, 1, maxTimerMillis)

/**
 * A count that is a share of another variable's (`whole`, named `wholeName`): from `min` (1 unless
 * given) to that value, which the rule names; unset, `fallback` of it, so the default follows the
 * variable it divides.
 */
export const shareOf = (
  name: string,
  whole: Config.Config<number>,
  wholeName: string,
  fallback: (wholeValue: number) => number,
  min = 1
): Config.Config<number> =>
  Config.all([whole, Config.option(Config.string(name))]).pipe(
    Config.mapOrFail(([wholeValue, value]) => {
      if (Option.isNone(value) || value.value === "") return Either.right(fallback(wholeValue))
      const parsed = wholeNumberIn(min, wholeValue)(value.value)
      return parsed === undefined
        ? Either.left(refusal(name, shown(value.value), `must be a whole number from ${min} to ${wholeName} (${wholeValue})`))
        : Either.right(parsed)
    })
  )

export const portRule = "must be a whole number from 1 to 65535"

export const port = (name: string): Config.Config<Option.Option<number>> =>
  optionalVariable(name, portRule, wholeNumberIn(1, 65_535))

const hostName = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i

/** An address to bind: an IP address or a host name (a typo fails here, not at listen time). */
export const host = (name: string, fallback: string): Config.Config<string> =>
  variable(
    name,
    fallback,
    "must be an IP address or a host name",
    (value) => (net.isIP(value) !== 0 || hostName.test(value) ? value : undefined)
  )

/** A host as a URL and a Host header write it: lowercase, an IPv6 address in brackets. */
export const urlHost = (value: string): string | undefined => {
  const bare = value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value
  if (net.isIPv6(bare)) return hostOf(`[${bare}]`)
  return net.isIPv4(bare) || hostName.test(bare) ? hostOf(bare) : undefined
}

/** `*`, or host names and IP addresses, comma-separated; each as `urlHost` writes it. */
export const hostNames = (name: string): Config.Config<{ readonly any: boolean; readonly names: ReadonlyArray<string> }> =>
  variable(
    name,
    { any: false, names: [] },
    "must be * or comma-separated host names or IP addresses, without scheme or port (api.example.com,10.0.0.5)",
    (value) => {
      const list = value.split(",").map((each) => each.trim()).filter((each) => each !== "")
      const names = list.filter((each) => each !== "*").map(urlHost)
      return names.every((each) => each !== undefined)
        ? { any: list.includes("*"), names: [...new Set(names)] }
        : undefined
    }
  )

/** Browsers send `scheme://host[:port]` exactly; any other spelling would silently never match. */
const isOrigin = (value: string): boolean => {
  try {
    return new URL(value).origin === value
  } catch {
    return false
  }
}

export const origins = (name: string): Config.Config<ReadonlyArray<string>> =>
  variable(
    name,
    [],
    "must be * or comma-separated origins such as https://app.example.com (scheme, host and port only)",
    (value) => {
      const list = value.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")
      return list.every((origin) => origin === "*" || isOrigin(origin)) ? list : undefined
    }
  )

/** One of a fixed set of words, any case. */
export const oneOf = <const Words extends ReadonlyArray<string>>(
  name: string,
  fallback: Words[number],
  words: Words
): Config.Config<Words[number]> =>
  variable(
    name,
    fallback,
    `must be one of ${words.join(", ")}`,
    (value) => words.find((word) => word === value.toLowerCase())
  )

/** An origin a browser can reach (`http://host:port`, no path): where a page's scripts call a service. */
export const originUrl = (name: string): Config.Config<Option.Option<string>> =>
  optionalVariable(name, "must be an origin such as http://orgs.example.com:9090 (scheme, host and port only)", (value) => {
    try {
      const url = new URL(value)
      return ["http:", "https:"].includes(url.protocol) && url.origin === value.replace(/\/$/, "") ? url.origin : undefined
    } catch {
      return undefined
    }
  })
