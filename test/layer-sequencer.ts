import { BaseSequencer, type TestSpecification } from 'vitest/node';
import type { Layer } from './layers';

/**
 * The order in which `npm test` runs its layers (vitest runs projects one after another, by
 * name unless told otherwise). The layers with the longest files first, while the aws layer's
 * global setup synthesizes the stack in the background (test/aws/harness/global-synth.ts);
 * the unit layer's many short files last, where they fill both workers to the end.
 */
const order: readonly Layer[] = ['e2e', 'infra', 'aws', 'integration', 'unit'];

export class LayerSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => order.indexOf(f.project.name as Layer);
    // Within a layer, the base order stands (longest first once a run has timed them): the sort is stable.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
