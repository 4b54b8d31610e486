import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

/*
 * What a front end ships for one Connect call: GetOrg through `onboarding-services-client/connect`
 * and `@connectrpc/connect-web`, bundled for a browser as a front end's bundler would, beside the
 * same call built from connect-es and the generated descriptor alone. The entry carries none of
 * Effect; the difference between the two is what the package adds. Needs packages/client/dist
 * (`npm run build`).
 */

const root = fileURLToPath(new URL("../", import.meta.url))
/** The limit docs/examples.md ("In a browser") states, in KB of 1000 bytes, minified. */
const limitKb = 120

const call = (descriptors: string) => `
import { createClient } from "@connectrpc/connect"
import { createConnectTransport } from "@connectrpc/connect-web"
import { OrgService } from "${descriptors}"

const orgs = createClient(OrgService, createConnectTransport({ baseUrl: location.origin }))
const { org } = await orgs.getOrg({ id: "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b" })
document.body.textContent = org?.name ?? ""
`

const bundle = async (descriptors: string) => {
  const result = await esbuild.build({
    stdin: { contents: call(descriptors), resolveDir: root, sourcefile: "call.ts", loader: "ts" },
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent"
  })
  const code = result.outputFiles[0]!.contents
  return {
    minified: code.length,
    gzipped: gzipSync(code).length,
    packages: [...new Set(Object.keys(result.metafile.inputs).flatMap((input) => {
      // The workspace's package resolves to where it lives, packages/client.
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
      return match !== null ? [match[1]!] : input.startsWith("packages/client/") ? ["onboarding-services-client"] : []
    }))].sort()
  }
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

describe("a browser's bundle of one Connect call", () => {
  it("through onboarding-services-client/connect is at most the limit, and carries connect-es and protobuf-es alone", async () => {
    const [entry, bare] = await Promise.all([
      bundle("onboarding-services-client/connect"),
      bundle("./src/gen/org/v1beta1/org_pb.ts")
    ])
    console.log(
      `GetOrg through connect-web, minified (gzipped):\n` +
        `  onboarding-services-client/connect: ${kb(entry.minified)} (${kb(entry.gzipped)})\n` +
        `  connect-es and the generated descriptor alone: ${kb(bare.minified)} (${kb(bare.gzipped)})`
    )
    expect(entry.packages).toEqual(["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web", "onboarding-services-client"].sort())
    expect(bare.packages).toEqual(["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"])
    expect(entry.minified).toBeLessThanOrEqual(limitKb * 1000)
    expect(readFileSync(`${root}docs/examples.md`, "utf8")).toContain(`at most ${limitKb} KB`)
  })

  it("the measure sees what the main entry would bring", async () => {
    // The same call through the package's main entry bundles Effect: a bundle that left it out
    // (a wrong entry, a broken resolve) would pass the test above for nothing.
    const main = await bundle("onboarding-services-client")
    expect(main.packages).toEqual(expect.arrayContaining(["effect", "@effect/platform", "@effect/rpc"]))
    expect(main.minified).toBeGreaterThan(limitKb * 1000)
  })
})
