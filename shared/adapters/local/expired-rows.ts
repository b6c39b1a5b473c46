import { type AttributeValue, DeleteItemCommand, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../ports';
import { tableDesign } from '../../store/table-design';

/** Rows read per round: a table of a million rows is walked in about an hour at the default pace. */
const defaultPageSize = 500;

/**
 * DynamoDB's time to live for the embedded table: dynalite keeps a row whose `ttl` has passed
 * for ever, so a runtime left up for weeks would keep every claim, mark and 30 days of history
 * it ever wrote, on disk and in the LevelDB files it maps into memory. Each round reads one page
 * of the table from where the last stopped and deletes its expired rows, as DynamoDB's own TTL
 * does in the background. The product's reads already treat an expired row as absent (DynamoDB
 * deletes within days, not at once), so nothing reads differently; this only gives the space back.
 * A Scan, which no product read path uses: this stands in for the service, not for a query.
 */
export class ExpiredRows {
  private cursor: Record<string, AttributeValue> | undefined;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly pageSize = defaultPageSize,
  ) {}

  /** One page: the expired rows in it deleted; true while the walk has not reached the table's end. */
  async sweepPage(): Promise<{ deleted: number; more: boolean }> {
    const now = { N: String(Math.floor(this.clock.now() / 1000)) };
    const page = await this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        Limit: this.pageSize,
        ExclusiveStartKey: this.cursor,
        FilterExpression: '#ttl < :now',
        ProjectionExpression: '#pk, #sk',
        ExpressionAttributeNames: { '#ttl': tableDesign.ttlAttribute, '#pk': tableDesign.partitionKey, '#sk': tableDesign.sortKey },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    let deleted = 0;
    for (const key of page.Items ?? []) {
      // Only if still expired: a row renewed since the page was read (a lease, a claim taken again) stays.
      const gone = await this.client
        .send(
          new DeleteItemCommand({
            TableName: this.tableName,
            Key: key,
            ConditionExpression: '#ttl < :now',
            ExpressionAttributeNames: { '#ttl': tableDesign.ttlAttribute },
            ExpressionAttributeValues: { ':now': now },
          }),
        )
        .then(
          () => true,
          (e: unknown) => {
            if (e instanceof Error && e.name === 'ConditionalCheckFailedException') return false;
            throw e;
          },
        );
      if (gone) deleted += 1;
    }
    this.cursor = page.LastEvaluatedKey;
    return { deleted, more: this.cursor !== undefined };
  }
}
