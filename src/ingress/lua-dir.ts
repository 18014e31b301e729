// The .lua files sit beside this module: in src/ingress under tsx, and in dist/ingress after
// `npm run build`, which copies them (tsc alone does not).
export const LUA_DIR = __dirname;
