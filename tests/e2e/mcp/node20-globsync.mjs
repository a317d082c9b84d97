// Test-only: lets the MCP conformance suite load on Node < 22, which lacks fs.globSync. Every import of `fs` is
// resolved to node20-fs.mjs, which re-exports Node's fs and adds a globSync that throws (`server` runs never call it).
import { register } from 'node:module';

register(new URL('./node20-globsync-hooks.mjs', import.meta.url));
