/**
 * The client is built on the Effect 3 line. npm only warns when a project installs another line
 * over the peers (`npm install effect@latest`), and the client then fails deep inside a library;
 * the peers are optional (the `/connect` entry needs none of them), so npm does not install them
 * either. The package's main entry refuses first, in one line that names what it found and the fix.
 *
 * The versions are read from the packages' own package.json, which each exports: a JSON import
 * that Node and bundlers resolve alike, and one that links on every line (a module only Effect 3
 * has would fail to link before any check could run). Each is imported on its own, so that a
 * missing package reads as missing rather than failing the entry's link.
 */
import own from "onboarding-services-client/package.json" with { type: "json" }

/** major, minor, patch; a part the text lacks reads as 0, as npm reads `^1` as `^1.0.0`. */
const parts = (version: string): readonly [number, number, number] => {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^[\^~]/, "").split(/[.+-]/).map(Number)
  return [major, minor, patch]
}

/** Whether `version` is in the caret range `^a.b.c`, as npm reads it (0.x: the minor is the line). */
export const inCaretRange = (version: string, range: string): boolean => {
  const [major, minor, patch] = parts(version)
  const [wantMajor, wantMinor, wantPatch] = parts(range)
  if (major !== wantMajor || (wantMajor === 0 && minor !== wantMinor)) return false
  return minor > wantMinor || (minor === wantMinor && patch >= wantPatch)
}

/** The one line that refuses a mix, or undefined when every peer is in its range. */
export const effectLineProblem = (
  found: Readonly<Record<string, string>>,
  wanted: Readonly<Record<string, string>>
): string | undefined => {
  const names = Object.keys(wanted)
  const inRange = ([name, range]: readonly [string, string]) => {
    const version = found[name]
    return version !== undefined && inCaretRange(version, range)
  }
  if (Object.entries(wanted).every(inRange)) return undefined
  const list = (versions: Readonly<Record<string, string | undefined>>) =>
    names.map((name) => `${name} ${versions[name] ?? "missing"}`).join(", ")
  return `onboarding-services-client needs the Effect 3 line (${list(wanted)}) and found ${list(found)}: ` +
    `npm install ${names.map((name) => `${name}@${wanted[name]}`).join(" ")}`
}

const effectPeers = ["effect", "@effect/platform", "@effect/rpc"] as const

/** A package's version as this module resolves it, or undefined when it is not installed. */
const installedVersion = (name: (typeof effectPeers)[number]): Promise<string | undefined> => {
  // Literal specifiers, so that a bundler resolves each as Node does.
  const manifest = name === "effect"
    ? import("effect/package.json", { with: { type: "json" } })
    : name === "@effect/platform"
    ? import("@effect/platform/package.json", { with: { type: "json" } })
    : import("@effect/rpc/package.json", { with: { type: "json" } })
  return manifest.then((loaded) => loaded.default.version, () => undefined)
}

/** Throws the one line when the installed Effect packages are missing or not the line this client was built on. */
export const requireEffectLine = async (): Promise<void> => {
  const wanted = Object.fromEntries(effectPeers.map((name) => [name, own.peerDependencies[name]]))
  const versions = await Promise.all(effectPeers.map(installedVersion))
  const found: Record<string, string> = {}
  effectPeers.forEach((name, index) => {
    const version = versions[index]
    if (version !== undefined) found[name] = version
  })
  const problem = effectLineProblem(found, wanted)
  if (problem !== undefined) throw new Error(problem)
}
