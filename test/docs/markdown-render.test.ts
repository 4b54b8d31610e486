import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { markdownProblems, type Repository } from "./markdownProblems.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const pages = ["README.md", ...readdirSync(`${root}docs`).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)]

const repository: Repository = {
  exists: (path) => existsSync(`${root}${path}`),
  page: (path) => (existsSync(`${root}${path}`) ? readFileSync(`${root}${path}`, "utf8") : undefined)
}

/** A repository holding only `files`, for the samples below. */
const sampleRepository = (files: ReadonlyArray<string>): Repository => ({
  exists: (path) => files.includes(path) || path === "",
  page: () => undefined
})

const problemsIn = (text: string, files: ReadonlyArray<string> = []) =>
  markdownProblems({ path: "README.md", text }, sampleRepository(["README.md", ...files]))

const fence = "```"

describe("the README and docs/*.md render as written", () => {
  it("found every page", () => {
    expect(pages).toContain("README.md")
    expect(pages).toContain("docs/architecture.md")
  })

  it.each(pages)("%s: every fence closed and paired, no prose in a code block, every local link found", (page) => {
    expect(markdownProblems({ path: page, text: readFileSync(`${root}${page}`, "utf8") }, repository)).toEqual([])
  })
})

describe("the check fails on a page that renders broken", () => {
  it("passes a page that renders as written", () => {
    const text = [
      "# Title",
      "",
      `${fence}sh`,
      "# a shell comment, not a heading",
      "curl -s http://127.0.0.1:9090/orgs",
      fence,
      "",
      "````md",
      `${fence}sh`,
      "# Markdown shown as Markdown: a longer fence around it",
      fence,
      "[a link](shown.md)",
      "````",
      "",
      "See [the title](#title), [the docs](docs/a.md#usage) and ![a picture](docs/a.png).",
      "",
      "- a list item",
      "",
      `  ${fence}`,
      "  indented in the item",
      `  ${fence}`
    ].join("\n")
    const docs = "# Usage\n"
    const repository: Repository = {
      exists: (path) => ["README.md", "docs/a.md", "docs/a.png"].includes(path),
      page: (path) => (path === "docs/a.md" ? docs : undefined)
    }
    expect(markdownProblems({ path: "README.md", text }, repository)).toEqual([])
  })

  it("fails a fence that runs to the end of the page", () => {
    expect(problemsIn(["# Title", "", `${fence}sh`, "npm start", "", "## Next", "text"].join("\n"))).toEqual([
      "README.md:3: the fence opened here is never closed: it runs on to line 7"
    ])
  })

  it("fails a fence that runs to the end of its list item", () => {
    expect(problemsIn(["- step one", "", `  ${fence}sh`, "  npm start", "", "after the list"].join("\n"))).toEqual([
      "README.md:3: the fence opened here is never closed: it runs on to line 5"
    ])
  })

  it("fails a sample log whose opening fence is missing (the README's first screen before c4ce08e)", () => {
    const text = [
      "On a terminal it prints:",
      "",
      "[09:30:03.452] INFO (#5): org service listening on http://127.0.0.1:9090",
      fence,
      "",
      "While it runs, in a browser:",
      "",
      "- **the onboarding console**, <http://127.0.0.1:8081/>",
      "",
      "## A first call in each style",
      "",
      `${fence}sh`,
      "# Connect (JSON over HTTP): CreateOrg",
      "curl -s http://127.0.0.1:9090/org.v1beta1.OrgService/CreateOrg",
      fence,
      "",
      `${fence}sh`,
      "# gRPC: GetOrg",
      fence
    ].join("\n")
    expect(problemsIn(text)).toEqual([
      "README.md:8: a Markdown link (- **the onboarding console**, <http://127.0.0.1:8081/>) inside the code block opened at line 4",
      "README.md:10: a heading (## A first call in each style) inside the code block opened at line 4",
      "README.md:12: a fence opener (```sh) inside the block opened at line 4: " +
      "a fence above has lost its opener or its closer, and the blocks pair up out of step",
      "README.md:13: a heading (# Connect (JSON over HTTP): CreateOrg) inside the code block opened at line 4"
    ])
  })

  it("fails a Markdown link in a shell block", () => {
    expect(problemsIn([`${fence}sh`, "npm start  # see [the docs](docs/a.md)", fence].join("\n"))).toEqual([
      "README.md:2: a Markdown link (npm start  # see [the docs](docs/a.md)) inside the code block opened at line 1"
    ])
  })

  it("fails links and images to files and headings that do not exist", () => {
    const text = [
      "# Title",
      "",
      "See [the guide](docs/guide.md), [here](#no-such-heading), [up](../outside.md),",
      "[fine](docs/a.md) and [web](https://example.com/missing.md).",
      "",
      "![picture](docs/images/missing.png)",
      "",
      "<img src=\"docs/images/gone.png\">"
    ].join("\n")
    expect(problemsIn(text, ["docs/a.md"])).toEqual([
      "README.md:3: the link docs/guide.md names docs/guide.md, which does not exist",
      "README.md:3: the link #no-such-heading names a heading README.md does not have",
      "README.md:3: the link ../outside.md leaves the repository",
      "README.md:6: the link docs/images/missing.png names docs/images/missing.png, which does not exist",
      "README.md:8: the link docs/images/gone.png names docs/images/gone.png, which does not exist"
    ])
  })
})
