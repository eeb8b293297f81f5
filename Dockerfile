# deltabroker built from this repository, on Node.js 24, the active LTS line (Node 20 reached end of life in
# April 2026). Debian bookworm, as on the machines this is tested on. SoftHSM2 is installed so the hsm methods
# work out of the box; point DELTABROKER_HSM_MODULE at your vendor's PKCS#11 module for a real HSM.
FROM node:24-bookworm-slim AS build
# pkcs11js has no prebuilt binary: node-gyp compiles it with python3, make and g++, against the headers of the
# image's own Node in /usr/local/include/node (nodedir), so nothing is downloaded from nodejs.org.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends softhsm2 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/schemas ./schemas
COPY --from=build /app/config ./config
COPY package.json ./
# The service runs as the image's unprivileged `node` user. The code stays root's and read-only; the data
# directory (keys, SoftHSM2 token, PostgreSQL cluster, partition logs) is the one place it writes, and a volume
# mounted there starts with this ownership.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV DELTABROKER_DATA_DIR=/app/data
EXPOSE 8080
# Run the script itself, as `npm start` does: its first line gives Node the service's heap limit.
CMD ["./bin/deltabroker.js", "serve"]
