# The app image: web (Next behind server/cli/web.ts) and worker come from the same build, started
# with different commands (see docker-compose.yml). Not built on the development machine (no
# Docker engine there).
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
# postinstall applies these (patch-package) before anything imports the patched packages.
COPY server/patches ./server/patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
COPY --from=build /app /app
EXPOSE 3000
CMD ["npm", "run", "web"]
