// The loopback fake server lives with the sandbox (`npm run dev`); tests use the same one.
export * from '../../local/sandbox/fake-http';
