import MarkdownIt from "markdown-it"
import type Token from "markdown-it/lib/token.mjs"

/**
 * What a reader of a Markdown page would see go wrong on GitHub, found by parsing the page the
 * way GitHub does (CommonMark, with tables and raw HTML) rather than by scanning its lines: a line
 * scan pairs fences the same wrong way a missing fence makes the renderer pair them.
 *
 * - an unclosed fence: a fence whose last line is not a closing fence, so it runs to the end of the
 *   page (or of the list item or quote it is in) and takes everything after it;
 * - mispaired fences: a fence whose content holds a line that opens a fence of its own kind
 *   (```sh inside a block opened by ```). That line cannot be content anyone meant: it means a
 *   fence lost its opener (or its closer) and the blocks after it paired up out of step, which is
 *   how a missing opener swallows the prose between two blocks without leaving one open at the end;
 * - prose in a code block: a Markdown heading in a fence with no language, or Markdown link syntax
 *   (`[text](target)`, `<https://…>`) in any fence that is not itself Markdown: rendered as code,
 *   they show their syntax instead of a heading or a link;
 * - a link or image to a file of this repository that does not exist, or to a heading (`#anchor`)
 *   that the page it points into does not have.
 */
export interface Page {
  /** Repository-relative path, `/`-separated: `README.md`, `docs/testing.md`. */
  readonly path: string
  readonly text: string
}

export interface Repository {
  /** Whether a repository-relative path names a file or a directory. */
  readonly exists: (path: string) => boolean
  /** The text of a repository-relative Markdown page, for the anchors a link into it may name. */
  readonly page: (path: string) => string | undefined
}

const markdown = new MarkdownIt({ html: true })

const fenceLine = /^(`{3,}|~{3,})(.*)$/
/** A line's text without the list indentation and quote markers its container puts before it. */
const unnested = (line: string) => line.replace(/^[\s>]*/, "")
const headingLine = /^ {0,3}#{1,6}(?:[ \t]|$)/
const markdownLink = /\[[^\]\n]*\]\([^)\s]+[^)]*\)|<https?:\/\/[^>\s]+>/
const markdownInfo = new Set(["md", "markdown"])
const plainInfo = new Set(["", "text", "txt", "plain", "plaintext"])

/** The language a fence names, without the attributes some renderers take after it. */
const languageOf = (token: Token) => token.info.trim().split(/\s+/)[0]!.toLowerCase()

const fenceProblems = (page: Page, lines: ReadonlyArray<string>, token: Token): Array<string> => {
  const [start, end] = token.map!
  const where = `${page.path}:${start + 1}`
  const problems: Array<string> = []
  const closer = end - 1 > start ? fenceLine.exec(unnested(lines[end - 1]!)) : null
  const closes = closer !== null && closer[1]![0] === token.markup[0] && closer[1]!.length >= token.markup.length &&
    closer[2]!.trim() === ""
  if (!closes) problems.push(`${where}: the fence opened here is never closed: it runs on to line ${end}`)
  const language = languageOf(token)
  token.content.split("\n").forEach((content, index) => {
    const at = `${page.path}:${start + 2 + index}`
    const opener = fenceLine.exec(content.trimStart())
    if (
      opener !== null && opener[1]![0] === token.markup[0] && opener[1]!.length >= token.markup.length &&
      opener[2]!.trim() !== ""
    ) {
      problems.push(
        `${at}: a fence opener (${content.trim()}) inside the block opened at line ${start + 1}: ` +
          "a fence above has lost its opener or its closer, and the blocks pair up out of step"
      )
    }
    if (plainInfo.has(language) && headingLine.test(content)) {
      problems.push(`${at}: a heading (${content.trim()}) inside the code block opened at line ${start + 1}`)
    }
    if (!markdownInfo.has(language) && markdownLink.test(content)) {
      problems.push(`${at}: a Markdown link (${content.trim()}) inside the code block opened at line ${start + 1}`)
    }
  })
  return problems
}

/** GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-")

const flatten = (tokens: ReadonlyArray<Token>): Array<Token> =>
  tokens.flatMap((token) => [token, ...flatten(token.children ?? [])])

/** The anchors GitHub gives a page's headings, a repeated heading's with `-1`, `-2`… after it. */
export const anchorsOf = (text: string): Set<string> => {
  const tokens = markdown.parse(text, {})
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  tokens.forEach((token, index) => {
    if (token.type !== "heading_open") return
    const inline = tokens[index + 1]!
    const words = flatten(inline.children ?? [])
      .filter((child) => child.type === "text" || child.type === "code_inline")
      .map((child) => child.content)
      .join("")
    const base = slug(words)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  })
  // Raw HTML anchors: <a id="…"> or name="…".
  for (const [, id] of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

const scheme = /^[a-z][a-z0-9+.-]*:|^\/\//i

/** A repository-relative path for a link's target, or undefined when it leaves the repository. */
const resolve = (from: string, target: string): string | undefined => {
  const parts = target.startsWith("/") ? [] : from.split("/").slice(0, -1)
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (parts.length === 0) return undefined
      parts.pop()
    } else parts.push(part)
  }
  return parts.join("/")
}

const linkProblems = (page: Page, repository: Repository, line: number, href: string): Array<string> => {
  if (scheme.test(href)) return []
  const where = `${page.path}:${line}`
  const [pathPart, anchor] = href.split("#", 2) as [string, string | undefined]
  const target = pathPart === "" ? page.path : resolve(page.path, decodeURIComponent(pathPart.split("?")[0]!))
  if (target === undefined) return [`${where}: the link ${href} leaves the repository`]
  if (!repository.exists(target)) return [`${where}: the link ${href} names ${target}, which does not exist`]
  if (anchor === undefined || anchor === "" || !target.endsWith(".md")) return []
  const text = target === page.path ? page.text : repository.page(target)
  if (text === undefined || anchorsOf(text).has(decodeURIComponent(anchor))) return []
  return [`${where}: the link ${href} names a heading ${target} does not have`]
}

const htmlTargets = /\b(?:href|src)="([^"]+)"/g

export const markdownProblems = (page: Page, repository: Repository): Array<string> => {
  const lines = page.text.split("\n")
  const tokens = markdown.parse(page.text, {})
  const problems: Array<string> = []
  let line = 1
  for (const token of tokens) {
    if (token.map !== null) line = token.map[0] + 1
    if (token.type === "fence") problems.push(...fenceProblems(page, lines, token))
    if (token.type === "html_block") {
      for (const [, href] of token.content.matchAll(htmlTargets)) {
        problems.push(...linkProblems(page, repository, line, href!))
      }
    }
    for (const child of flatten(token.children ?? [])) {
      const href = child.type === "link_open"
        ? child.attrGet("href")
        : child.type === "image"
        ? child.attrGet("src")
        : null
      if (href !== null) problems.push(...linkProblems(page, repository, line, href))
      if (child.type === "html_inline") {
        for (const [, target] of child.content.matchAll(htmlTargets)) {
          problems.push(...linkProblems(page, repository, line, target!))
        }
      }
    }
  }
  return problems
}
