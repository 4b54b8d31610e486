import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { statements, tables } from "./baselines/statements.js"
import type { Seed } from "./Scenarios.js"

/** The benchmark's own database on the given server, dropped afterwards: other runs share the server. */
export const createDatabase = async (serverUrl: string, name: string) => {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(`create database ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}

export const dropDatabase = async (serverUrl: string, name: string) => {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(`drop database if exists ${name} with (force)`)
  } finally {
    await client.end()
  }
}

/**
 * For the tools that measure one server at a time (bench/tools/): a database of its own with the
 * schema (`npm run migrate`'s, which the baselines expect) and the rows the reads read.
 */
export const seededDatabase = async (serverUrl: string, prefix: string, seed: Seed) => {
  const database = await createDatabase(serverUrl, `${prefix}_${randomBytes(4).toString("hex")}`)
  execFileSync(process.execPath, [fileURLToPath(new URL("../../../dist/main/migrate.js", import.meta.url))], {
    env: { ...process.env, DATABASE_URL: database.url },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    await client.query(statements.insertOrg, [...tables.orgs.values({ id: seed.orgId, name: "Acme Tools" })])
    await client.query(statements.insertProfile, [...tables.profiles.values({ id: seed.profileId, fullName: "Ada Lovelace", orgId: seed.orgId })])
    await client.query(statements.insertLicense, [
      ...tables.licenses.values({ id: seed.licenseId, userId: seed.profileId, start: "2026-01-01T00:00:00Z", end: "2027-01-01T00:00:00Z" })
    ])
  } finally {
    await client.end()
  }
  return database
}
