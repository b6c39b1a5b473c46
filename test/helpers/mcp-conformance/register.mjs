// Preload for the MCP conformance suite on Node 20: `node --import <this file> .../conformance/dist/index.js`.
// The suite imports `globSync` from `fs`, which Node adds in 22; the hook below serves `fs` with it.
import { register } from 'node:module';

register('./fs-hook.mjs', import.meta.url);
