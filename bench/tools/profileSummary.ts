/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by package and by function,
 * and inclusive time for the heaviest frames, so a profile can be read in a terminal and quoted
 * in docs/benchmarks.md. Usage: node dist/bench/bench/tools/profileSummary.js <file.cpuprofile> [top]
 */
import { frameName, readProfile } from "./CpuProfile.js"

const [file, topText] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: profileSummary <file.cpuprofile> [top]")
  process.exit(2)
}
const top = Number(topText ?? 25)
const { byId, parent, selfMicros, totalMicros: total } = readProfile(file)

const packageOf = (url: string) => {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (match) return match[1]!
  if (url.includes("/dist/")) return "project:" + url.replace(/.*\/dist\//, "").split("/").slice(0, 2).join("/")
  return url === "" ? "(native/vm)" : url.startsWith("node:") ? "node:" + url.slice(5).split("/")[0] : url
}
const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value)
const selfByPackage = new Map<string, number>()
const selfByFrame = new Map<string, number>()
const inclusive = new Map<string, number>()
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!
  add(selfByPackage, node.callFrame.functionName.startsWith("(") ? node.callFrame.functionName : packageOf(node.callFrame.url), micros)
  add(selfByFrame, frameName(node), micros)
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = frameName(byId.get(at)!)
    if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + micros)
    seen.add(name)
  }
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`)
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * micros) / total).toFixed(1).padStart(5)}%  ${key}`)
  }
}
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`)
print("self time by package", selfByPackage)
print("self time by function", selfByFrame)
print("inclusive time", inclusive)
