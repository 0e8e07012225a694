# The durable-agents worker, built from this repository.
#   docker build -t durable-agents .
#   docker run --rm -e TEMPORAL_ADDRESS=host:7233 -e ANTHROPIC_API_KEY durable-agents
#   versioned: -e DURABLE_AGENTS_DEPLOYMENT=agents -e DURABLE_AGENTS_BUILD_ID=$(git rev-parse --short HEAD)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# tsc to dist/, then the ahead-of-time workflow bundle dist/workflow-bundle.js.
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    DURABLE_AGENTS_STORE_DIR=/data/store
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY prompts ./prompts
RUN mkdir -p /data/store && chown -R node:node /data
USER node
VOLUME ["/data"]
# The worker process, configured from its environment (as `durable-agents worker`). SIGTERM from
# `docker stop` shuts it down gracefully.
CMD ["node", "dist/worker.js"]
