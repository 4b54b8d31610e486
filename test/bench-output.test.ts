import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { outputReader, start } from "../bench/Processes.js"

/**
 * A benchmarked process prints an access line a call, hundreds of MB over a full run: the
 * benchmark keeps its start and its latest lines, and counts its error lines as they come, lines
 * split across chunks and stdout's and stderr's chunks interleaved.
 */
describe("a benchmarked process's output", () => {
  it("counts an error line cut across chunks once, with the other stream's chunks between its halves", () => {
    const read = outputReader()
    read.add("stdout", '{"level":"info"}\n{"level":"err')
    read.add("stderr", "ERROR on stderr\n")
    read.add("stdout", 'or"}\n{"level":"info"}\n')
    read.add("stderr", "an unfinished ERROR")
    expect(read.errors()).toBe(3)
    expect(read.text()).toBe('{"level":"info"}\n{"level":"errERROR on stderr\nor"}\n{"level":"info"}\nan unfinished ERROR')
  })

  it("counts every error line and keeps the start and the end, not all of it", async () => {
    const script = join(mkdtempSync(join(tmpdir(), "bench-output-")), "printer.mjs")
    writeFileSync(
      script,
      `
const write = (stream, text) => new Promise((resolve) => stream.write(text, resolve))
await write(process.stdout, "first line\\nlistening on 127.0.0.1\\n")
const line = '{"level":"info","message":"GET /orgs/1 200 ok"}\\n'
for (let i = 0; i < 40; i++) {
  await write(process.stdout, line.repeat(1000))
  // An error line cut in two, with a line on stderr between its halves.
  await write(process.stdout, '{"level":"err')
  await write(process.stderr, "ERROR on stderr\\n")
  await write(process.stdout, 'or","message":"failed"}\\n')
}
await write(process.stdout, "last line\\n")
`
    )
    const started = await start({ name: "printer", script, env: {} })
    // Its streams may have closed already, while start() waited to look again: no event to wait for then.
    const closed = (stream: NodeJS.ReadableStream & { readonly closed: boolean } | null) =>
      stream === null || stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once("close", resolve))
    await Promise.all([closed(started.child.stdout), closed(started.child.stderr)])
    expect(started.errorsLogged()).toBe(80)
    const output = started.output()
    // stdout's and stderr's chunks may be read in either order: near the start, near the end.
    expect(output.slice(0, 1024)).toContain("first line\nlistening on")
    expect(output.slice(-1024)).toContain("last line\n")
    // 40 × 1,000 lines of 50 bytes printed, about 2 MB; kept at each end, 256 KB and at most one
    // pipe read (64 KB) past it.
    expect(output.length).toBeLessThan(2 * (256 + 64) * 1024)
    expect(output).toContain("\n[…]\n")
  })
})
