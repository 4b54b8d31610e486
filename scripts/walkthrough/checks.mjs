import { randomUUID } from "node:crypto"
import { consoleChecks } from "./console.mjs"
import { schemaChecks } from "./schemas.mjs"
import { Refused, stylesOf } from "./styles.mjs"

/*
 * What the walkthrough checks of the built copy with `nickname`: each a line, `ok` or `FAILED`
 * with why. The limit is the recipe's (docs/adding-a-field.md: 64).
 */

const limit = 64
const tooLong = "n".repeat(limit + 1)
const longest = "l".repeat(limit)
const license = { start: "2025-01-01T09:00:00Z", end: "2026-01-01T09:00:00Z" }

/** Objects compared whatever their keys' order. */
const canonical = (value) =>
  JSON.stringify(value, (_, inner) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner)

const expectEqual = (actual, expected, what) => {
  const [a, e] = [canonical(actual), canonical(expected)]
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`)
}

/** The call refused as invalid_argument with a message naming `path` as a broken rule's field. */
const refusedNaming = async (call, path) => {
  try {
    await call()
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    if (error.code !== 3) throw new Error(`refused with code ${error.code}, not invalid_argument (3): ${error.message}`)
    if (!new RegExp(`(^|[;\\s])${path.replace(".", "\\.")}: `).test(error.message)) throw new Error(`the refusal does not name ${path}: "${error.message}"`)
    return
  }
  throw new Error(`a ${tooLong.length}-character nickname was accepted`)
}

const profileChecks = (style, urls) => [
  [`${style.style}: a profile's nickname written, read back and listed`, async () => {
    const orgId = randomUUID()
    const profile = { id: randomUUID(), fullName: `Ada ${style.style}`, orgId, nickname: longest }
    expectEqual(await style.createProfile(profile), profile, "the created profile")
    expectEqual(await style.getProfile(profile.id), profile, "the profile read back")
    const without = { id: randomUUID(), fullName: "No Nickname", orgId }
    expectEqual(await style.createProfile(without), without, "a profile made without a nickname")
    expectEqual((await style.listProfiles(orgId)).map((p) => p.nickname), [undefined, longest], "the org's list, newest first")
  }],
  [`${style.style}: a ${tooLong.length}-character nickname refused as invalid_argument naming nickname`, () =>
    refusedNaming(() => style.createProfile({ id: randomUUID(), fullName: "Too Long", orgId: randomUUID(), nickname: tooLong }), "nickname")],
  ...(style.createWorkflow === undefined ? [] : [
    [`${style.style}: the workflow carries the nickname into the profile it makes`, async () => {
      const nickname = `via ${style.style}`
      const made = await style.createWorkflow({ org: { name: "Walkthrough" }, profile: { fullName: "Flow Person", nickname }, license })
      const response = await fetch(`${urls.profile}/profiles/${made.profileId}`)
      expectEqual((await response.json()).profile?.nickname, nickname, "the workflow's profile's nickname (REST GET)")
    }],
    [`${style.style}: the workflow refuses a ${tooLong.length}-character nickname naming profile.nickname`, () =>
      refusedNaming(() => style.createWorkflow({ org: { name: "Walkthrough" }, profile: { fullName: "Flow Person", nickname: tooLong }, license }), "profile.nickname")]
  ])
]

/** A check that hangs fails instead of holding the run (a quiet machine takes a few seconds for any of them). */
const withinTime = (promise, ms = 60_000) => {
  let timer
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Runs every check, printing each; answers the failed ones' lines. */
export const runChecks = async ({ scratch, urls }) => {
  const styles = await stylesOf(scratch, urls)
  const inConsole = consoleChecks(urls)
  const checks = [...styles.flatMap((style) => profileChecks(style, urls)), ...schemaChecks(scratch, urls), ...inConsole.checks]
  const failed = []
  try {
    for (const [name, check] of checks) {
      try {
        await withinTime(check())
        console.log(`ok      ${name}`)
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error)
        console.log(`FAILED  ${name}\n        ${why.split("\n").join("\n        ")}`)
        failed.push(`${name}: ${why}`)
      }
    }
  } finally {
    for (const style of styles) style.close?.()
    await inConsole.close()
  }
  return failed
}
