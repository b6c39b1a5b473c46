// The embedded DynamoDB (dynalite) in its own worker thread: see embedded-dynamo.ts.
// Plain JavaScript so that it loads the same way under tsx, vitest and node.
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { closeLevelIteratorsOnReturn } from './level-iterators.mjs';

closeLevelIteratorsOnReturn();

const server = dynalite({
  ...(workerData.path ? { path: workerData.path } : {}),
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
});
server.once('error', (e) => parentPort.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) }));
server.listen(workerData.port ?? 0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  // Requests still in flight when LevelDB closes fail inside dynalite, some as promises nobody
  // awaits. From now on those failures are the expected end of the thread, not a crash; before,
  // a crash stays fatal (the main side hears it as the worker's error).
  const endOfThread = () => {};
  process.on('unhandledRejection', endOfThread);
  process.on('uncaughtException', endOfThread);
  // dynalite's close also closes LevelDB, releasing its lock for the next open of the same path.
  server.close((e) => {
    parentPort.postMessage({ type: 'closed', message: e ? String(e) : undefined });
    parentPort.close();
  });
  // The HTTP server's close waits for every connection to end, and a client that keeps sending on a
  // kept-alive connection would hold it open until the thread is terminated: end them all.
  server.closeAllConnections();
});
