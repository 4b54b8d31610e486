import type { Operation, Style } from "../Scenarios.js"
import { median } from "./Median.js"

/** One cell bench/tools/instructionsPerCall.ts counts: a server, an operation over a style, calls in flight. */
export interface Cell {
  readonly server: string
  readonly operation: Operation
  readonly style: Style
  readonly concurrency: number
}

/** One window's figures, per call: instructions by part (millions) and bytes allocated on V8's heap. */
export interface Window {
  readonly rest: number
  readonly compiler: number
  readonly gc: number
  readonly total: number
  readonly bytes: number
}

export interface Counted {
  readonly cell: Cell
  readonly windows: ReadonlyArray<Window>
}

const m = (millions: number) => `${millions.toFixed(3)} M`
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

/** A cell's windows, one row each. */
export const printCell = ({ cell, windows }: Counted, traced: boolean) => {
  console.log(
    `\n| window (${cell.server}, ${traced ? "traced" : "untraced"}, ${cell.operation} over ${cell.style}, c${cell.concurrency}) ` +
      "| rest | V8 compiler | GC | total | bytes |"
  )
  console.log("|---|---:|---:|---:|---:|---:|")
  for (const [i, w] of windows.entries()) {
    console.log(`| ${i + 1} | ${m(w.rest)} | ${m(w.compiler)} | ${m(w.gc)} | ${m(w.total)} | ${kb(w.bytes)} |`)
  }
}

/** Each cell of ours beside each other server counted in the same cell: the median window's rest and bytes, and ours ÷ theirs. */
export const printSummary = (counted: ReadonlyArray<Counted>) => {
  const mid = (c: Counted, of: keyof Window) => median(c.windows.map((w) => w[of]))
  console.log("\n| cell | ours: rest | bytes | peer | rest | bytes | ours ÷ peer: rest | bytes |")
  console.log("|---|---:|---:|---|---:|---:|---:|---:|")
  for (const ours of counted.filter((c) => c.cell.server === "ours")) {
    const { cell } = ours
    const others = counted.filter(({ cell: o }) =>
      o.server !== "ours" && o.operation === cell.operation && o.style === cell.style && o.concurrency === cell.concurrency
    )
    const head = `| ${cell.operation} over ${cell.style}, c${cell.concurrency} | ${m(mid(ours, "rest"))} | ${kb(mid(ours, "bytes"))} `
    if (others.length === 0) console.log(`${head}| — | — | — | — | — |`)
    for (const other of others) {
      console.log(
        `${head}| ${other.cell.server} | ${m(mid(other, "rest"))} | ${kb(mid(other, "bytes"))} ` +
          `| ${(mid(ours, "rest") / mid(other, "rest")).toFixed(2)} | ${(mid(ours, "bytes") / mid(other, "bytes")).toFixed(2)} |`
      )
    }
  }
}
