# deltabroker built from this repository. SoftHSM2 is installed so the hsm methods work out of the box;
# point DELTABROKER_HSM_MODULE at your vendor's PKCS#11 module for a real HSM.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends softhsm2 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/schemas ./schemas
COPY --from=build /app/config ./config
COPY package.json ./
ENV DELTABROKER_DATA_DIR=/app/data
EXPOSE 8080
CMD ["node", "bin/deltabroker.js", "serve"]
