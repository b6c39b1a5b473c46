import type { TableSchema } from '../iam/classify-request';

/**
 * DynamoDB request units as on-demand billing counts them, from one request and its answer:
 * a write unit per 1 KB of each item written (twice in a transaction), one more per global
 * secondary index the written item carries the keys of; a read unit per 4 KB read (half for
 * an eventually consistent read, twice in a transaction), at least one read per item asked.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
 * What the request does not show is counted low: a delete or update writes an index only
 * when its expression names the index's key, and an item's size is taken from what was sent.
 */
export interface RequestUnits {
  read: number;
  write: number;
}

type Attr = Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bytes of one attribute value, as DynamoDB sizes items (names and values in UTF-8; numbers about half their digits). */
function valueBytes(v: unknown): number {
  if (!isObject(v)) return 0;
  if (typeof v.S === 'string') return Buffer.byteLength(v.S);
  if (typeof v.N === 'string') return Math.ceil(v.N.replace(/^-|\./g, '').length / 2) + 1;
  if (typeof v.B === 'string') return Buffer.from(v.B, 'base64').length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (Array.isArray(v.SS)) return v.SS.reduce((n: number, s: string) => n + Buffer.byteLength(s), 0);
  if (Array.isArray(v.L)) return 3 + v.L.reduce((n: number, x: unknown) => n + 1 + valueBytes(x), 0);
  if (isObject(v.M)) return 3 + itemBytes(v.M);
  return 0;
}

export function itemBytes(item: Attr): number {
  let n = 0;
  for (const [name, v] of Object.entries(item)) n += Buffer.byteLength(name) + valueBytes(v);
  return n;
}

const kb = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / (per * 1024)));

/** Indexes whose partition key the item carries (each costs a write of its own). */
function indexWrites(item: Attr, table: TableSchema | undefined): number {
  if (!table) return 0;
  return Object.values(table.indexes ?? {}).filter((ix) => item[ix.partitionKey] !== undefined).length;
}

/** Indexes an update expression names the partition key of. */
function indexWritesOfUpdate(op: Attr, table: TableSchema | undefined): number {
  if (!table) return 0;
  const names = isObject(op.ExpressionAttributeNames) ? Object.values(op.ExpressionAttributeNames).map(String) : [];
  const expr = String(op.UpdateExpression ?? '');
  return Object.values(table.indexes ?? {}).filter((ix) => names.includes(ix.partitionKey) || expr.includes(ix.partitionKey)).length;
}

function writeOf(kind: string, op: Attr, table: TableSchema | undefined): number {
  if (kind === 'Put' || kind === 'PutRequest' || kind === 'PutItem') {
    const item = isObject(op.Item) ? op.Item : {};
    return kb(itemBytes(item), 1) + indexWrites(item, table);
  }
  if (kind === 'Update' || kind === 'UpdateItem') return 1 + indexWritesOfUpdate(op, table);
  // Delete, DeleteRequest, ConditionCheck: the item's size is not in the request.
  return 1;
}

function parse(text: string): Attr {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

function readOf(items: Attr[], consistent: boolean): number {
  const bytes = items.reduce((n, it) => n + itemBytes(it), 0);
  return kb(bytes, 4) * (consistent ? 1 : 0.5);
}

/** The request units one DynamoDB call used; `tables` by name (tableSchemas()). */
export function dynamoUnits(operation: string, request: string, answer: string, tables: Record<string, TableSchema>): RequestUnits {
  const req = parse(request);
  const res = parse(answer);
  const table = typeof req.TableName === 'string' ? tables[req.TableName] : undefined;
  const consistent = req.ConsistentRead === true;
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return { read: 0, write: writeOf(operation, req, table) };
    case 'BatchWriteItem': {
      let write = 0;
      for (const [name, ops] of Object.entries(isObject(req.RequestItems) ? req.RequestItems : {})) {
        for (const w of Array.isArray(ops) ? ops : []) {
          if (!isObject(w)) continue;
          const [kind, body] = Object.entries(w)[0] ?? [];
          if (kind && isObject(body)) write += writeOf(kind, body, tables[name]);
        }
      }
      return { read: 0, write };
    }
    case 'TransactWriteItems': {
      let write = 0;
      for (const t of Array.isArray(req.TransactItems) ? req.TransactItems : []) {
        if (!isObject(t)) continue;
        const [kind, body] = Object.entries(t)[0] ?? [];
        if (kind && isObject(body))
          write += 2 * writeOf(kind, body, typeof body.TableName === 'string' ? tables[body.TableName] : undefined);
      }
      return { read: 0, write };
    }
    case 'GetItem':
      return { read: readOf(isObject(res.Item) ? [res.Item] : [], consistent), write: 0 };
    case 'Query':
    case 'Scan':
      return { read: readOf(Array.isArray(res.Items) ? (res.Items as Attr[]) : [], consistent), write: 0 };
    case 'BatchGetItem': {
      let read = 0;
      const asked = isObject(req.RequestItems) ? req.RequestItems : {};
      const got = isObject(res.Responses) ? res.Responses : {};
      for (const [name, spec] of Object.entries(asked)) {
        const keys = isObject(spec) && Array.isArray(spec.Keys) ? spec.Keys.length : 0;
        const items = Array.isArray(got[name]) ? (got[name] as Attr[]) : [];
        const f = isObject(spec) && spec.ConsistentRead === true ? 1 : 0.5;
        // Each item rounded up on its own; a key with no item still costs a read.
        read += items.reduce((n, it) => n + kb(itemBytes(it), 4), 0) * f + Math.max(0, keys - items.length) * f;
      }
      return { read, write: 0 };
    }
    default:
      return { read: 0, write: 0 };
  }
}
