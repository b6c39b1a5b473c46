import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

/**
 * How every Lambda function is bundled: one place for the esbuild settings, used by the
 * stack (infra/constructs/integration-function.ts, through infra/bundling/bundle-cli.ts),
 * by `npm run bench:cold-start` and by the bundle tests, so what is measured and tested is
 * what is deployed.
 *
 * `outdir` gets `index.mjs` (the handler) and `chunks/`: what the code reaches only through
 * a dynamic import (Octokit, loaded on the first code-host step; S3; the SDK's credential
 * providers other than the environment's) is split into chunks that are read and compiled
 * on first use, not at every cold start. In one file, esbuild defers running such code but
 * node still compiles all of it at load: the tool step's start-up code went from 725 KB to
 * 476 KB (docs/performance.md, cold start).
 *
 * The AWS SDK is bundled, not left to the copy in the nodejs24.x runtime: the versions in
 * package-lock.json are the ones that run (AWS recommends bundling to pin them), and one
 * tree-shaken file loads faster than the SDK's many modules (bench/cold-start.ts measured
 * 75-130 ms per function bundled, 206-316 ms with the SDK external). What keeps the bundles under 1 MB is
 * {@link zodEnglishOnly}, {@link browserUserAgentLeftOut}, {@link consoleLoginCredentialsLeftOut} and
 * {@link profileCredentialsLeftOut}.
 */
export function functionBuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    entryNames: 'index',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    format: 'esm',
    target: 'node24',
    platform: 'node',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    // Nothing external: the SDK included (see above); node: built-ins stay out by platform.
    external: [],
    // CommonJS dependencies call require(); an ESM bundle has none unless we make it (every
    // chunk gets this banner, each its own module scope).
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    plugins: [zodEnglishOnly, browserUserAgentLeftOut, consoleLoginCredentialsLeftOut, profileCredentialsLeftOut],
    metafile: true,
    logLevel: 'error',
  };
}

const zodLocalesDir = path.join(path.dirname(createRequire(import.meta.url).resolve('zod')), 'v4', 'locales');

/**
 * zod keeps its English messages and drops the other 50-odd locales (~258 KB of every
 * bundle). The product imports zod as `import * as z from 'zod'`, which lets esbuild shake
 * what it does not use (~95 KB a bundle against `import { z }`, a namespace object it cannot
 * shake), but `z.locales` and `z.core.locales` re-export zod's locales index, so every
 * locale would still land in the bundle although only `z.config(z.locales.xx())` reaches one.
 * The index is replaced by one that holds `en` only: the default English messages come
 * from zod's schemas importing `locales/en.js` directly, and `z.locales.en` still works;
 * `z.locales.xx` for any other locale is undefined in a bundle (this project uses none).
 * test/infra/function-bundles.test.ts checks that a bundle still speaks English.
 */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /[\\/]locales[\\/]index\.(c?js)$/ }, (args) => {
      const resolved = path.resolve(args.resolveDir, args.path);
      if (path.dirname(resolved) !== zodLocalesDir) return undefined;
      return { path: resolved, namespace: 'zod-english-only' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(zodLocalesDir, 'en.js'))};`,
      loader: 'js',
      resolveDir: zodLocalesDir,
    }));
  },
};

/**
 * The SDK's core re-exports its browser user-agent provider, which imports `bowser` (a
 * browser-sniffing library, ~34 KB minified) on first use; a Lambda function on Node never
 * calls it (the SDK's Node clients use the Node user agent), yet esbuild bundles it as a chunk
 * of every function. It resolves to an empty module instead; were it ever called, the
 * provider reads an empty module as "no parser" and names the browser `unknown`.
 */
export const browserUserAgentLeftOut: Plugin = {
  name: 'browser-user-agent-left-out',
  setup(build) {
    build.onResolve({ filter: /^bowser$/ }, () => ({ path: 'bowser', namespace: 'browser-user-agent-left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'browser-user-agent-left-out' }, () => ({ contents: 'export default {};', loader: 'js' }));
  },
};

/**
 * The SDK's shared-ini credentials reach `@aws-sdk/credential-provider-login` (the credentials
 * of `aws login`, a console session cached on a workstation) by a dynamic import, so esbuild
 * bundles it as a chunk of every function (~6 KB, with its signing code). A Lambda function
 * takes its credentials from the environment, first in the chain, and has no such profile; the
 * module resolves to one whose provider refuses, as the chain's own providers do when they have
 * nothing, so the chain would go on to the next.
 */
export const consoleLoginCredentialsLeftOut: Plugin = {
  name: 'console-login-credentials-left-out',
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-login$/ }, () => ({
      path: 'credential-provider-login',
      namespace: 'console-login-credentials-left-out',
    }));
    build.onLoad({ filter: /.*/, namespace: 'console-login-credentials-left-out' }, () => ({
      contents: `export const fromLoginCredentials = () => async () => { const e = new Error('console login credentials are not bundled in a function'); e.name = 'CredentialsProviderError'; e.tryNextLink = true; throw e; };`,
      loader: 'js',
    }));
  },
};

/** The credential providers of the SDK's default chain that a Lambda function never reaches, with the one each is asked for. */
const profileProviders: Record<string, string> = {
  '@aws-sdk/credential-provider-sso': 'fromSSO',
  '@aws-sdk/credential-provider-ini': 'fromIni',
  '@aws-sdk/credential-provider-process': 'fromProcess',
  '@aws-sdk/credential-provider-web-identity': 'fromTokenFile',
};

/**
 * The SDK's default credential chain reaches SSO, the shared config and credentials files, a
 * credential process and a web identity token file by dynamic imports, so esbuild bundles them
 * as chunks of every function, with the STS, SSO and SSO OIDC clients they call (~64 KB). A
 * Lambda function is given its role's credentials in the environment, the chain's first link,
 * and has none of these sources (the container and instance providers after them stay). Each
 * resolves to a module whose provider refuses, as the chain's own providers do when they have
 * nothing, so the chain would go on to the next; a function given `AWS_PROFILE` skips the
 * environment's credentials and finds none.
 */
export const profileCredentialsLeftOut: Plugin = {
  name: 'profile-credentials-left-out',
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-(sso|ini|process|web-identity)$/ }, (args) => ({
      path: args.path,
      namespace: 'profile-credentials-left-out',
    }));
    build.onLoad({ filter: /.*/, namespace: 'profile-credentials-left-out' }, (args) => ({
      contents: `export const ${profileProviders[args.path]} = () => async () => { const e = new Error('${args.path} is not bundled in a function'); e.name = 'CredentialsProviderError'; e.tryNextLink = true; throw e; };`,
      loader: 'js',
    }));
  },
};
