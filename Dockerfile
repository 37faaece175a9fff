# One image for every process of the flash sale: web, seckill service, worker and the migration
# job differ only by their command (docker-compose.yml). Built without a Docker engine on the
# development machines; deploy/deploy-files.test.ts checks it by reading.
#
# Node: the current LTS, major pinned. The code stays compatible with Node 20.19 (package.json
# engines), which the development machines run.

# deps: every dependency, with patch-package's patches applied and the Prisma client generated
# (postinstall); only the package files, so a source change keeps this layer cached.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY server/patches ./server/patches
RUN npm ci --no-audit --no-fund

# build: the Next.js build (and the Prisma client into server/generated), then the dev
# dependencies dropped. tsx, next, prisma and patch-package are dependencies: the processes run
# TypeScript through tsx. --ignore-scripts: postinstall already ran, and a second prisma
# generate would leave server/generated newer than .next/BUILD_ID, so `npm run web` would
# rebuild at start (server/cli/build.ts).
FROM deps AS build
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# runtime: the code owned by root, read-only to the app; only .next (Next's cache) writable.
# COPY keeps the modification times, so the build stays fresh for server/cli/build.ts.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
# The processes bind loopback by default; in a container they must take other containers' calls.
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 LISTEN_HOST=0.0.0.0
COPY --from=build /app /app
RUN chown -R node:node /app/.next
USER node
# web on PORT (3000), the seckill service on SECKILL_PORT (3200).
EXPOSE 3000 3200
# The web process's check; compose gives the seckill service and the worker their own
# (server/cli/healthcheck.ts seckill|worker) and turns it off for the migration job.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "--import", "tsx", "server/cli/healthcheck.ts", "web"]
# node itself, not npm: as PID 1 npm exits on SIGTERM without passing it on, and the web's drain never runs.
CMD ["node", "--import", "tsx", "server/cli/start.ts", "--only", "web"]
