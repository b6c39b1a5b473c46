// One Lambda function's execution environment: its own thread, environment (process.env is
// the copy its Worker was given) and module state. Loads functions/<role>/handler.ts through
// tsx, then runs one invocation per message, as Lambda runs one per container at a time.
import { setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// On Linux a nice value is the calling thread's own: this container's, and the threads it starts.
if (workerData.nice) setPriority(workerData.nice);
register();
const { handler } = await import(workerData.handlerUrl);

// The container's clock, which the suite may move on (`passTime`): time-driven behaviour of a warm
// container (a value read again after an interval) is seen without waiting. Only this thread's.
const realNow = Date.now;
let clockShiftMs = 0;
Date.now = () => realNow() + clockShiftMs;

parentPort.on('message', async ({ id, event, timeoutMs, functionName, passMs, heap }) => {
  if (heap) {
    const h = getHeapStatistics();
    const mb = (bytes) => bytes / 1024 / 1024;
    parentPort.postMessage({
      id,
      ok: true,
      result: { usedMb: mb(h.used_heap_size), totalMb: mb(h.total_heap_size), externalMb: mb(h.external_memory) },
    });
    return;
  }
  if (passMs !== undefined) {
    clockShiftMs += passMs;
    parentPort.postMessage({ id, ok: true, result: null });
    return;
  }
  const deadline = Date.now() + timeoutMs;
  const context = {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'aws-mode-suite',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
  try {
    const result = await handler(event, context);
    parentPort.postMessage({ id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, error: { name: e?.name, message: e?.message, stack: e?.stack } });
  }
});
parentPort.postMessage({ ready: true });
