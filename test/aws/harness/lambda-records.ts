import type { Message } from '@aws-sdk/client-sqs';

/**
 * Message attributes as Lambda's SQS event carries them (`stringValue`, `dataType`, ...), not
 * as the SQS API answers them (`StringValue`, `DataType`).
 */
export function lambdaMessageAttributes(attrs: Message['MessageAttributes']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attrs ?? {}).map(([name, a]) => [
      name,
      { stringValue: a.StringValue, binaryValue: a.BinaryValue, stringListValues: [], binaryListValues: [], dataType: a.DataType },
    ]),
  );
}
