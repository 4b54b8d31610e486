import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import { readFileSync } from "node:fs"
// @ts-expect-error a plain script, without declarations
import { lines, runStages, stages } from "../scripts/build.mjs"

/**
 * `npm run build` (scripts/build.mjs) says what it does: a stage that runs past the grace gets a line,
 * then one every 5 s, then its time. Tested on Node's timers faked, with stages that end when the test
 * says, so nothing here waits on a real clock.
 */

interface Stage {
  readonly name: string
  readonly doing: string
  readonly command: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
}

const stage = (name: string, after: ReadonlyArray<string> = []): Stage => ({ name, doing: `doing ${name}`, command: [name], after })

/** Stages that end when `end(name, code)` is called; `started` lists them as they start. */
const controlled = () => {
  const started: Array<string> = []
  const endings = new Map<string, (code: number) => void>()
  const run = (each: Stage) =>
    new Promise<number>((resolve) => {
      started.push(each.name)
      endings.set(each.name, resolve)
    })
  return { started, run, end: (name: string, code = 0) => endings.get(name)!(code) }
}

const printed = () => {
  const all: Array<string> = []
  return { all, print: (line: string) => all.push(line) }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe("the build driver", () => {
  it("names a long stage after a 2 s grace, prints a line every 5 s while it runs, then its time and the build's", async () => {
    const slow = stage("slow")
    const stages = controlled()
    const out = printed()
    const result = runStages([slow], stages.run, { print: out.print })
    await vi.advanceTimersByTimeAsync(1_999)
    expect(out.all).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(out.all).toEqual([lines.started(slow)])
    await vi.advanceTimersByTimeAsync(8_000)
    expect(out.all).toEqual([lines.started(slow), lines.running(slow, 5_000), lines.running(slow, 10_000)])
    await vi.advanceTimersByTimeAsync(2_300)
    stages.end("slow")
    expect(await result).toBe(0)
    expect(out.all.slice(3)).toEqual(["build: doing slow: 12.3 s", "build: done in 12.3 s"])
    expect(out.all[1]).toBe("build: doing slow, 5 s so far")
    // No timer is left behind to print later.
    await vi.advanceTimersByTimeAsync(60_000)
    expect(out.all).toHaveLength(5)
  })

  it("prints nothing for a build whose stages all end within the grace", async () => {
    const stages = controlled()
    const out = printed()
    const result = runStages([stage("a"), stage("b", ["a"])], stages.run, { print: out.print })
    await vi.advanceTimersByTimeAsync(400)
    stages.end("a")
    await vi.advanceTimersByTimeAsync(1_900)
    stages.end("b")
    expect(await result).toBe(0)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(out.all).toEqual([])
  })

  it("starts a stage when those it needs have ended, and stages that need each other not at once", async () => {
    const stages = controlled()
    const result = runStages([stage("server"), stage("client"), stage("console", ["client"]), stage("bundle", ["server"])], stages.run, {
      print: () => {}
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(stages.started).toEqual(["server", "client"])
    stages.end("client")
    await vi.advanceTimersByTimeAsync(0)
    expect(stages.started).toEqual(["server", "client", "console"])
    stages.end("server")
    await vi.advanceTimersByTimeAsync(0)
    expect(stages.started).toEqual(["server", "client", "console", "bundle"])
    stages.end("console")
    stages.end("bundle")
    expect(await result).toBe(0)
  })

  it("answers a failed stage's exit code, says which failed, and never runs what needs it", async () => {
    const stages = controlled()
    const out = printed()
    const result = runStages([stage("server"), stage("bundle", ["server"])], stages.run, { print: out.print })
    await vi.advanceTimersByTimeAsync(3_000)
    stages.end("server", 2)
    expect(await result).toBe(2)
    expect(stages.started).toEqual(["server"])
    expect(out.all).toEqual(["build: doing server (server)", "build: doing server failed (exit code 2)"])
  })

  it("is what `npm run build` runs, over stages that each need only stages listed before it (no circle)", () => {
    const scripts = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).scripts
    expect(scripts.build).toBe("node scripts/build.mjs")
    const names = (stages as ReadonlyArray<Stage>).map((each) => each.name)
    names.forEach((name, index) => {
      const { after } = (stages as ReadonlyArray<Stage>)[index]!
      for (const needed of after) expect(names.slice(0, index), `${name} needs ${needed}`).toContain(needed)
    })
  })
})
