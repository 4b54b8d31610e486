import pg from "pg"

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
