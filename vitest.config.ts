import { defineConfig } from 'vitest/config';
import { LayerSequencer } from './test/layer-sequencer';
import { layers, type Layer } from './test/layers';

export default defineConfig({
  test: {
    pool: 'forks',
    // One process per worker, reused by the files of a layer: a new process and a fresh import of
    // the SDKs per file cost more than most files' tests. Each file still gets fresh copies of the
    // project's modules (test/helpers/fresh-modules.ts).
    isolate: false,
    setupFiles: ['test/helpers/fresh-modules.ts'],
    // The longest tests walk a whole flow against fakes that check every request against GitHub's
    // description (about 20 s on an idle two-core machine); a CI machine's neighbours must not fail them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only make the embedded servers fight for CPU.
    maxWorkers: 2,
    sequence: { sequencer: LayerSequencer },
    // One project per layer: `npm test` runs them all in one run (one report for CI);
    // `npm run test:<layer>` runs one.
    // The AWS-mode suite synthesizes the stack once per run (test/aws/harness/global-synth.ts).
    projects: (Object.keys(layers) as Layer[]).map((name) => ({
      extends: true,
      test: { name, include: [...layers[name]], ...(name === 'aws' ? { globalSetup: ['test/aws/harness/global-synth.ts'] } : {}) },
    })),
  },
});
