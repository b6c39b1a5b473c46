import { allProviderTools } from './registry';
import { createToolStepHandler } from './create-handler';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, role } from './deps';

/** Tool steps: function URL (`GET /tools`, `POST /tools/{toolId}/invoke`) and direct invoke. */
export const handler = withObservability(role, createToolStepHandler(appContext, allProviderTools));
