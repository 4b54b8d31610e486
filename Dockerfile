# One image for every command: `docker run <image> org|profile|license|workflow|all|migrate`
# (`all`, the four services in one process on the embedded database in /data, by default).
# How it is built, run, stopped and probed: docs/deployment.md ("Containers").
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.console.json ./
COPY packages/client/tsconfig.json packages/client/
COPY scripts scripts
COPY src src
RUN npm run build && rm dist/*.tsbuildinfo

# The packages the lock file does not mark `dev`, and nothing else. The client workspace is a
# link to a package the server never imports.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN npm ci --omit=dev --no-audit --no-fund && rm node_modules/onboarding-services-client && npm cache clean --force

FROM ${NODE_IMAGE}
RUN groupadd --system --gid 10001 onboarding \
  && useradd --system --uid 10001 --gid onboarding --home-dir /app --shell /usr/sbin/nologin onboarding \
  && mkdir /data && chown onboarding:onboarding /data
WORKDIR /app
# glibc hands freed native memory back at once, as `npm start` sets (docs/configuration.md).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=131072
COPY --from=production-dependencies /app/node_modules node_modules
COPY package.json ./
COPY migrations migrations
COPY --from=build /app/dist dist
COPY scripts/healthcheck.mjs scripts/
USER onboarding
VOLUME /data
EXPOSE 9090 9091 9092 8081
# `node` itself is the container's process (PID 1, no shell in between), so `docker stop`'s SIGTERM
# reaches it and starts its graceful stop; it reaps no children it did not start itself
# (docs/deployment.md). `all` runs with `npm start`'s young generation; the per-service commands
# with Node's, as `npm run start:org` does.
ENTRYPOINT ["/bin/sh", "-c", "case \"$0\" in \
  all) exec node --max-semi-space-size=4 dist/main/all.js ;; \
  org|profile|license|workflow|migrate) exec node \"dist/main/$0.js\" ;; \
  *) echo \"unknown command '$0': one of all, org, profile, license, workflow, migrate\" >&2; exit 64 ;; \
  esac"]
CMD ["all"]
# /readyz of the command's own port, with node (the image has no curl); `migrate` has no port.
HEALTHCHECK --interval=5s --timeout=10s --start-period=120s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
