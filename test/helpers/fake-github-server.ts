// The simulated code host is product code of the sandbox (`npm run dev`); tests use the same one.
export * from '../../local/sandbox/simulated-github';
