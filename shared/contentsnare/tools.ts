import type { z } from 'zod';
import type { ProviderTools, ToolStep } from '../tools/tool-step';
import type { ContentSnareClient } from './client';
import { contentSnareClientFactory, type ContentSnareFactoryOptions } from './client-factory';
import { apiCall } from './tool-steps/api-call';
import { createClient } from './tool-steps/create-client';
import { createRequest } from './tool-steps/create-request';

const steps = [createClient, createRequest, apiCall] as unknown as ToolStep<z.ZodType, ContentSnareClient>[];

/** The collection service's tool steps with a client factory built from `options` (tests, benchmark). */
export function createContentsnareTools(options: ContentSnareFactoryOptions = {}): ProviderTools<ContentSnareClient> {
  return { provider: 'contentsnare', steps, client: contentSnareClientFactory(options) };
}

/** The collection service's three tool steps, with the real limits. */
export const contentsnareTools: ProviderTools<ContentSnareClient> = createContentsnareTools();
