import { join } from 'node:path';

// The .lua files stay in src/ingress (tsc does not copy them): two levels up is the repository root
// both from src/ingress under tsx and from dist/ingress after a build.
export const LUA_DIR = join(__dirname, '..', '..', 'src', 'ingress');
