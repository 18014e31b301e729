# One image for every role; the role is the container's argument (ingress, processor, dispatcher, all).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: the lock lacks other platforms' optional @swc/core packages (see scripts/node-modules.sh).
RUN npm install --no-save --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-console.mjs ./scripts/
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# A smaller young generation and a capped old one keep each role near 135 MB RSS under load instead of
# ~230 MB (bench/README.md, "Memory"); the bench runs the roles with these very flags.
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=192"
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY schemas ./schemas
COPY topics ./topics
# The callback verification code the partner portal shows (each tested by the suite).
COPY docs/partners/snippets ./docs/partners/snippets
USER node
EXPOSE 8080
ENTRYPOINT ["node", "dist/main.js"]
CMD ["all"]
