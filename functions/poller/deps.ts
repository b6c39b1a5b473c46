import { buildAwsCoreContext } from '../../shared/app/aws-core-context';
import { s3Blobs } from '../../shared/app/aws-s3';
import { sqsQueue } from '../../shared/app/aws-sqs';
import { perContainer } from '../../shared/app/per-container';
import { loadConfig } from '../../shared/config/config';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';

/** This function's name: the `service` of its log lines and metrics, and its handler wrapper's. */
export const role = 'poller';

/**
 * The function's AppContext, built once per container from the environment (the only place
 * that reads it), with the same Powertools logger and EMF metrics the handler's
 * `withObservability` wrapper flushes after each invocation. SDK clients: DynamoDB, Secrets
 * Manager, SQS (new items are enqueued) and S3 (bodies stored aside, loaded on first use);
 * no others, for a short cold start.
 */
export const appContext = perContainer(() => buildAwsCoreContext(loadConfig(), { queue: sqsQueue(), blobs: s3Blobs() }, { ...lambdaObservability(role), service: role }));
