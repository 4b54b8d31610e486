import { readFileSync } from "node:fs"

/** One frame of a V8 `.cpuprofile` (what `node --cpu-prof` writes). */
export interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}

/** A profile read from disk, with each frame's own sampled time (µs) and its parent. */
export const readProfile = (file: string) => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ReadonlyArray<ProfileNode>
    samples: ReadonlyArray<number>
    timeDeltas: ReadonlyArray<number>
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const selfMicros = new Map<number, number>()
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const totalMicros = [...selfMicros.values()].reduce((a, b) => a + b, 0)
  // Each sample in time order: its frame, when it was taken (µs since profiling began, which is
  // when the process began for --cpu-prof) and the time it stands for.
  let at = 0
  const samples = profile.samples.map((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0
    at += micros
    return { id, atMicros: at, micros }
  })
  return { root: profile.nodes[0]!, byId, parent, selfMicros, totalMicros, samples }
}

/** `name file:line`, with paths shortened to the package or to `dist/`. */
export const frameName = (node: ProfileNode) => {
  const url = node.callFrame.url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/")
  return `${node.callFrame.functionName || "(anonymous)"} ${url}${url ? `:${node.callFrame.lineNumber + 1}` : ""}`
}
