# syntax=docker/dockerfile:1
# Munja: multi-stage build on Node 24 / Debian 13 (glibc 2.41 ≥ 2.38, so the pinned
# uWebSockets.js binary loads untouched and the install step builds no shim).

FROM node:24-trixie-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts ./scripts
# A C compiler for the postinstall step's malloc_trim module (scripts/malloc-trim.c); only this
# stage has it, the runtime stage copies the built node_modules.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
# Production dependencies only; the postinstall step verifies the uWS binary's sha256.
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-trixie-slim AS runtime
# MUNJA_CONTAINER: the first-start notice then gives `docker exec` commands.
ENV NODE_ENV=production \
    MUNJA_CONTAINER=docker \
    HOST=0.0.0.0 \
    PORT=8080 \
    MUNJA_DATA=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# 8080: the API. The Prometheus metrics listener (9464) has no authentication and stays on the
# container's loopback unless MUNJA_METRICS_HOST is set to 0.0.0.0 on a private network.
EXPOSE 8080
# Over HTTPS when TLS is on (there is no plain HTTP then); the local probe need not verify the cert.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const tls = Boolean(process.env.MUNJA_TLS_CERT); require(tls ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: process.env.PORT || 8080, path: '/health', rejectUnauthorized: false }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]
# Node runs the TypeScript sources directly (type stripping); SIGTERM drains then exits 0. The
# young-generation cap is the one `npm start` uses (docs/configuration.md, "Memory").
CMD ["node", "--max-semi-space-size=8", "src/cli/munja.ts", "serve"]
