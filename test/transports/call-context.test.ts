import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Scope } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { handlersOf } from "../../src/operations/Operation.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { DatabaseGateRef, makeDatabaseGate } from "../../src/services/database/DatabaseGate.js"
import { OperationBudget, unitOfWorkReferences } from "../../src/services/database/Transient.js"
import { UnitOfWorkReferences } from "../../src/operations/DatabaseAccess.js"
import { callContext } from "../../src/transports/PortApp.js"

const src = fileURLToPath(new URL("../../src/", import.meta.url))

/** References only the process's start reads (a layer, a migration), never a call: a call context may leave them out. */
const readOnlyWhileStarting = new Set(["HealthCheckInterval", "MigrationLockWaits"])

/** Every `Context.Reference` class `src/` declares, by name, with the module that declares it. */
const declaredReferences = () => {
  const found: Array<{ readonly name: string; readonly file: string }> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (path.endsWith(".ts")) {
        for (const match of readFileSync(path, "utf8").matchAll(/export class (\w+) extends Context\.Reference</g)) {
          found.push({ name: match[1]!, file: path })
        }
      }
    }
  }
  walk(src)
  return found
}

const handlers = handlersOf(OrgOperations)
/** The references the services declare a unit of work reads, as src/main provides them. */
const unitOfWorkContext = Effect.runSync(Layer.build(unitOfWorkReferences).pipe(Effect.scoped))
const unrelated = Context.GenericTag<{ readonly built: string }>("A service only building the process uses")

/** A process's context as a port is built in: the table's handlers, its scope, the references set, and more. */
const processContext = (scope: Scope.Scope) =>
  Context.make(handlers, { CreateOrg: () => Effect.die("unused"), GetOrg: () => Effect.die("unused"), ListOrgs: () => Effect.die("unused") }).pipe(
    Context.add(Scope.Scope, scope),
    Context.add(OperationBudget, Duration.millis(1234)),
    Context.add(DatabaseGateRef, makeDatabaseGate({ connections: 3, maxWaiting: 7 })),
    Context.add(UnitOfWorkReferences, Context.get(unitOfWorkContext, UnitOfWorkReferences)),
    Context.add(unrelated, { built: "once" })
  )

describe("callContext", () => {
  it.scoped("keeps the handlers, the scope and the references a unit of work reads, and nothing else", () =>
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const process = processContext(scope)
      const kept = yield* Effect.provide(callContext(OrgOperations), process)
      expect(Context.get(kept, handlers)).toBe(Context.get(process, handlers))
      expect(Context.get(kept, Scope.Scope)).toBe(scope)
      expect(Context.get(kept, OperationBudget)).toStrictEqual(Duration.millis(1234))
      expect(Context.get(kept, DatabaseGateRef)).toBe(Context.get(process, DatabaseGateRef))
      expect(kept.unsafeMap.has(unrelated.key)).toBe(false)
      expect(kept.unsafeMap.size).toBe(4)
    }))

  it.scoped("keeps every reference src/ declares, but those read only while the process starts", () =>
    Effect.gen(function*() {
      const references = declaredReferences()
      expect(references.map((r) => r.name)).toEqual(expect.arrayContaining(["OperationBudget", "DatabaseGateRef"]))
      const kept = yield* Effect.provide(callContext(OrgOperations), processContext(yield* Effect.scope))
      for (const { file, name } of references) {
        if (readOnlyWhileStarting.has(name)) continue
        const reference: { readonly key: string } = (yield* Effect.promise(() => import(pathToFileURL(file).href)))[name]
        expect(kept.unsafeMap.has(reference.key), `${name} (${relative(src, file)}) in a call's context`).toBe(true)
      }
    }))
})
