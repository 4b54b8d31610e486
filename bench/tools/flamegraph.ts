/**
 * Renders a V8 `.cpuprofile` (from `node --cpu-prof`) as a flame graph SVG: each frame as wide as
 * its share of the samples, callers below callees. Frames under `--min=0.2` percent are dropped to
 * keep the file small. Usage: node dist/bench/bench/tools/flamegraph.js <in.cpuprofile> <out.svg> [--min=P]
 */
import { writeFileSync } from "node:fs"
import { frameName, type ProfileNode, readProfile } from "./CpuProfile.js"

const [input, output, ...flags] = process.argv.slice(2)
if (input === undefined || output === undefined) {
  console.error("usage: flamegraph <in.cpuprofile> <out.svg> [--min=0.2]")
  process.exit(2)
}
const minPercent = Number(flags.find((f) => f.startsWith("--min="))?.slice(6) ?? 0.2)
const { byId, root, selfMicros: self, totalMicros: all } = readProfile(input)
const total = new Map<number, number>()
const sum = (node: ProfileNode): number => {
  const t = (node.children ?? []).reduce((acc, c) => acc + sum(byId.get(c)!), self.get(node.id) ?? 0)
  total.set(node.id, t)
  return t
}
sum(root)

const width = 1600
const row = 16
const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const colour = (n: ProfileNode) => {
  const url = n.callFrame.url
  if (url.includes("node_modules/effect/")) return "#e8a33d"
  if (url.includes("node_modules/@effect/")) return "#d9772b"
  if (url.includes("@connectrpc") || url.includes("@bufbuild")) return "#5b9bd5"
  if (url.includes("node_modules/graphql")) return "#c55fa8"
  if (url.includes("node_modules/pg")) return "#6aa84f"
  if (url.includes("/dist/")) return "#c0392b"
  if (url.startsWith("node:")) return "#9e9e9e"
  return "#bdbdbd"
}

const rects: Array<string> = []
let depthMax = 0
const draw = (node: ProfileNode, x: number, depth: number) => {
  const t = total.get(node.id) ?? 0
  const w = (t / all) * width
  if ((100 * t) / all < minPercent) return
  depthMax = Math.max(depthMax, depth)
  const text = `${frameName(node)} (${((100 * t) / all).toFixed(1)}%)`
  rects.push(
    `<g><title>${escape(text)}</title><rect x="${x.toFixed(1)}" y="${depth}" width="${w.toFixed(1)}" height="${row - 1}" fill="${colour(node)}"/>` +
      (w > 40 ? `<text x="${(x + 3).toFixed(1)}" y="${depth}" dy="11">${escape(text.slice(0, Math.floor(w / 6.5)))}</text>` : "") +
      "</g>"
  )
  let at = x
  for (const child of node.children ?? []) {
    const c = byId.get(child)!
    draw(c, at, depth + row)
    at += ((total.get(c.id) ?? 0) / all) * width
  }
}
draw(root, 0, 0)
const height = depthMax + row
// Root at the bottom, as flame graphs are read.
const flipped = rects.map((r) => r.replace(/ y="(\d+)"/g, (_, y: string) => ` y="${height - row - Number(y)}"`))
writeFileSync(
  output,
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="10">` +
    `<style>text{pointer-events:none}</style>${flipped.join("")}</svg>\n`
)
console.log(`${output}: ${rects.length} frames, ${(all / 1e6).toFixed(2)} s sampled`)
