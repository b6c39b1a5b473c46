// The simulated partner API is product code of the sandbox (`npm run dev`); tests use the same one.
export * from '../../local/sandbox/simulated-contentsnare-api';
