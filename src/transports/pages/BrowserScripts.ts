/**
 * The few lines of script each page runs after its library, served as files of their own: the
 * pages' Content-Security-Policy allows no inline script. What a page needs to know about its
 * port (the service's name, whether calls need the token, GraphiQL's example) it reads from the
 * page's JSON block `#page-settings` (`settingsBlock` in PageResponses.ts), which is data, not
 * script. The API token, when the server has one, is kept in the tab's sessionStorage only.
 */

export const tokenKey = "onboarding-api-token"

/**
 * /docs: Swagger UI on this port's /openapi.json. The one place to give the token is Swagger
 * UI's own "Authorize" button (the document declares the bearer scheme, rest/RestApp.ts), which
 * sends it with every call; it is kept for the tab (a reload keeps it; Swagger UI's own
 * `persistAuthorization` would keep it in localStorage, beyond the tab). When the document itself
 * needs the token (SCHEMA_ACCESS=token) and the tab has none, the page says so, over a document
 * with the bearer scheme alone, and loads the real one once the token is given: a person sees
 * what to do, not "Failed to load API definition … Unauthorized".
 */
export const docsScript = `"use strict";
(() => {
  const settings = JSON.parse(document.getElementById("page-settings").textContent);
  const key = ${JSON.stringify(tokenKey)};
  const stored = () => sessionStorage.getItem(key) || "";
  const headers = (token) => (token ? { Authorization: "Bearer " + token } : {});
  let ui;
  let waiting = false;
  let started = false;
  const fetchDocument = (token) =>
    fetch("/openapi.json", { headers: headers(token), credentials: "omit" }).then((reply) =>
      reply.status === 401 ? undefined : reply.ok ? reply.json() : Promise.reject(new Error("GET /openapi.json answered " + reply.status)));
  // A document with the port's name, what to do, and the bearer scheme only (so Swagger UI shows its Authorize button).
  const waitingDocument = (text) => ({
    openapi: "3.1.0",
    info: { title: settings.service, version: "", description: "**" + text + "**" },
    paths: {},
    components: { securitySchemes: settings.securitySchemes },
    security: Object.keys(settings.securitySchemes).map((name) => ({ [name]: [] }))
  });
  const showDocument = (token) =>
    fetchDocument(token).then((spec) => {
      if (spec === undefined) {
        waiting = true;
        say(token
          ? "The token given was refused (401). Click Authorize, then Logout, and give the server's API_TOKEN."
          : "This server needs its API token to show its operations. Click Authorize, give the server's API_TOKEN, and they appear here.");
        return;
      }
      waiting = false;
      // The document is open (SCHEMA_ACCESS=open) but calls need the token: said above the operations too.
      if (settings.tokenRequired && !token) {
        spec.info.description = "**Calls need the server's API token: click Authorize and give it.**" +
          (spec.info.description ? "\\n\\n" + spec.info.description : "");
      }
      ui.specActions.updateSpec(JSON.stringify(spec));
    }, (error) => say("Could not load this port's API definition: " + error.message + ". Reload the page to try again."));
  const say = (text) => ui.specActions.updateSpec(JSON.stringify(waitingDocument(text)));
  // The token given to Authorize is kept for the tab, and loads the document if it was waiting for it.
  const rememberToken = () => ({
    statePlugins: {
      auth: {
        wrapActions: {
          authorize: (authorize) => (payload) => {
            const token = Object.values(payload || {}).map((scheme) => scheme && scheme.value).find(Boolean);
            if (token) sessionStorage.setItem(key, token);
            const done = authorize(payload);
            if (token && waiting) showDocument(token);
            return done;
          },
          logout: (logout) => (names) => {
            sessionStorage.removeItem(key);
            return logout(names);
          }
        }
      }
    }
  });
  ui = SwaggerUIBundle({
    spec: waitingDocument("Loading this port's API definition…"),
    dom_id: "#docs",
    deepLinking: true,
    tryItOutEnabled: true,
    validatorUrl: null,
    plugins: [rememberToken],
    onComplete: () => {
      if (started) return;
      started = true;
      const token = stored();
      if (token) {
        for (const name of Object.keys(settings.securitySchemes)) ui.preauthorizeApiKey(name, token);
      }
      showDocument(token);
    }
  });
})();
`

/**
 * /graphql in a browser: GraphiQL on this port's endpoint, named after the port's service, open
 * on the port's example query (graphql/ExampleQueries.ts). When calls need the token, its
 * Headers tab is open and prefilled with where the token goes, and a notice says so; the token
 * is not stored (GraphiQL keeps headers only when told to).
 */
export const graphiqlScript = `"use strict";
(() => {
  const settings = JSON.parse(document.getElementById("page-settings").textContent);
  const fetcher = GraphiQL.createFetcher({ url: location.pathname });
  const root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: settings.exampleQuery,
    defaultHeaders: settings.tokenRequired ? JSON.stringify({ Authorization: "Bearer <API_TOKEN>" }, null, 2) : undefined,
    defaultEditorToolsVisibility: settings.tokenRequired ? "headers" : false
  }, React.createElement(GraphiQL.Logo, null, settings.service)));
})();
`
