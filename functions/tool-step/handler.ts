import { createToolStepHandler } from './create-handler';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { allProviderTools, appContext, observability } from './deps';

/** Tool steps: function URL (`GET /tools`, `POST /tools/{toolId}/invoke`) and direct invoke. */
export const handler = withObservability(observability, createToolStepHandler(appContext, allProviderTools));
