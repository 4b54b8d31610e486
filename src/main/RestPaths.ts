import * as HttpApi from "@effect/platform/HttpApi"

/**
 * A REST API's paths as a person reads them (`/orgs/{id}`), each once, in the API's order: what
 * `--help` lists, read from the API declaration itself so that it cannot name another service's.
 */
export const restPaths = (api: HttpApi.HttpApi.Any): ReadonlyArray<string> => {
  const paths: Array<string> = []
  HttpApi.reflect(api as HttpApi.HttpApi<string, never, never, never>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      if (!paths.includes(path)) paths.push(path)
    }
  })
  return paths
}
