# syntax=docker/dockerfile:1
# The console in two stages: `build` installs every dependency and bundles the web app; the
# runtime stage keeps production dependencies, the TypeScript sources (run through tsx, no
# server build step) and the bundle, and runs as the unprivileged `node` user.
# ops/dockerfile-steps.mjs replays these steps outside a container (CI has no Docker daemon):
# keep every instruction on one line so it can read them. The runtime is Node 24 LTS (Node 20 left
# support on 30 April 2026); the replay runs on the Node major named in FROM, or fails.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY web/package.json web/
COPY simulators/package.json simulators/
COPY e2e/package.json e2e/
RUN npm install --no-audit --no-fund
COPY contract contract
COPY server server
COPY web web
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/contract contract
COPY --from=build /app/server server
COPY --from=build /app/web/package.json web/
COPY --from=build /app/web/dist web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "server/src/main.ts"]
