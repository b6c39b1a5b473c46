import { allProviderTools } from '../../shared/tools/registry';
import { createToolStepHandler } from './create-handler';
import { getContext } from './deps';

/** Tool steps: function URL (`GET /tools`, `POST /tools/{toolId}/invoke`) and direct invoke. */
export const handler = createToolStepHandler(getContext, allProviderTools);
