/**
 * The few lines of script each page runs after its library, served as files of their own: the
 * pages' Content-Security-Policy allows no inline script. The API token, when the server has one,
 * is kept in the tab's sessionStorage only.
 */

export const tokenKey = "onboarding-api-token"

/** /docs: Swagger UI on this port's /openapi.json; the token (if given) goes with every request it sends. */
export const docsScript = `"use strict";
(() => {
  const key = ${JSON.stringify(tokenKey)};
  const form = document.getElementById("token-form");
  const input = document.getElementById("token");
  input.value = sessionStorage.getItem(key) || "";
  const start = () => SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#docs",
    deepLinking: true,
    tryItOutEnabled: true,
    validatorUrl: null,
    requestInterceptor: (request) => {
      const token = sessionStorage.getItem(key);
      if (token && !request.headers.Authorization) request.headers.Authorization = "Bearer " + token;
      return request;
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token) sessionStorage.setItem(key, token); else sessionStorage.removeItem(key);
    start();
  });
  start();
})();
`

/** /graphql in a browser: GraphiQL on this port's endpoint; the Authorization header goes in its Headers tab. */
export const graphiqlScript = `"use strict";
(() => {
  const fetcher = GraphiQL.createFetcher({ url: location.pathname });
  const root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(GraphiQL, {
    fetcher,
    defaultEditorToolsVisibility: "headers"
  }));
})();
`
