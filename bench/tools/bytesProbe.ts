/**
 * A preload for bench/tools/instructionsPerCall.ts, in the server counted (ours or a peer), nothing
 * of the server changed: `node --import=<file URL of dist/bench/bench/tools/bytesProbe.js> <server>`
 * with BYTES_PROBE_DIR set. Each SIGUSR2 answers with a file `<BYTES_PROBE_DIR>/probe-<n>.json`:
 * an odd one opens a window, an even one closes it and writes the bytes V8 allocated on its heap
 * in between (`{ bytes, collections }`).
 *
 * Node 20's V8 keeps no running total of allocation, so it is summed: the heap's used size at the
 * close less at the open, plus what each collection in between freed (used before it less used
 * after it, from `v8.GCProfiler`, which reads the heap's statistics in V8's own GC callbacks).
 * Used size counts objects to the byte (new space up to its allocation top; a collection's frees
 * are accounted in its pause, before concurrent sweeping), so the sum is exact but for what
 * the probe itself allocates reading it, a few hundred bytes a window. Buffers' memory outside
 * the heap (ArrayBuffer backing stores) is not in it.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { GCProfiler, getHeapStatistics } from "node:v8"

const directory = process.env["BYTES_PROBE_DIR"]

interface Collection {
  readonly beforeGC: { readonly heapStatistics: { readonly usedHeapSize: number } }
  readonly afterGC: { readonly heapStatistics: { readonly usedHeapSize: number } }
}

if (directory !== undefined && directory !== "") {
  let signals = 0
  let profiler: GCProfiler | undefined
  let openedAt = 0
  process.on("SIGUSR2", () => {
    const n = ++signals
    const write = (body: unknown) => writeFileSync(join(directory, `probe-${n}.json`), JSON.stringify(body))
    if (n % 2 === 1) {
      profiler = new GCProfiler()
      profiler.start()
      openedAt = getHeapStatistics().used_heap_size
      write({ opened: true })
      return
    }
    // Read before stop(): stop() builds its answer on the heap.
    const closedAt = getHeapStatistics().used_heap_size
    const collections = (profiler?.stop() as { readonly statistics: ReadonlyArray<Collection> } | undefined)?.statistics ?? []
    profiler = undefined
    const freed = collections.reduce(
      (sum, c) => sum + c.beforeGC.heapStatistics.usedHeapSize - c.afterGC.heapStatistics.usedHeapSize,
      0
    )
    write({ bytes: closedAt - openedAt + freed, collections: collections.length })
  })
}
