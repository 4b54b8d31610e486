import { execFileSync } from "node:child_process"

/** Where an instruction was spent, by the function's name as callgrind_annotate prints it. */
const compiler = /compiler::|maglev|baseline::|Compiler::|Parser|Bytecode|interpreter::|turboshaft|OptimizingCompile|CodeGenerator|Assembler|RegisterAllocat|Scanner|Ast|Zone|Compile|Deoptimiz|FeedbackMetadata|ScopeInfo|Scope::|Rewriter|Typer|Graph|Schedule|InstructionSelector|LiveRange|MoveOptimizer|JumpThreading|Frame/
const collector = /Heap::|heap::|Scavenge|MarkCompact|Sweep|GCTracer|Marking|Marker|Evacuat|MemoryAllocator|PagedSpace|MinorMC|Worklist|MemoryChunk|LargeObject|NewSpace|SemiSpace|RememberedSet|SlotSet|ObjectVisitor|Visitor|Collector|IncrementalMarking|Compactor|Weak/

/**
 * One callgrind dump's instructions split by function into V8's compiler, its garbage collector
 * and the rest, the per-call work (bench/tools/instructionsPerCall.ts says why).
 */
export const split = (file: string) => {
  const text = execFileSync("callgrind_annotate", ["--inclusive=no", "--threshold=100", file], { encoding: "utf8", maxBuffer: 1 << 28 })
  const sums = { total: 0, compiler: 0, gc: 0, rest: 0 }
  for (const line of text.split("\n")) {
    const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*:.*)$/.exec(line)
    if (match === null || line.includes("PROGRAM TOTALS")) continue
    const ir = Number(match[1]!.replace(/,/g, ""))
    const name = match[2]!
    sums.total += ir
    if (compiler.test(name)) sums.compiler += ir
    else if (collector.test(name)) sums.gc += ir
    else sums.rest += ir
  }
  return sums
}
