// dynalite reads LevelDB through streams that close their iterator with `iterator.return()` when
// the stream ends or is cut short (a Query's Limit). The iterators of the LevelDB binding it runs
// on (abstract-level, under level 10) close with `close()` and have no `return()`, so every Query
// and Scan left two iterators open for the life of the process. An open LevelDB iterator pins the
// memtable and the table files it started on, so under a steady load the process's memory grew
// without bound: memtables freed by nobody, compacted files kept mapped.
// Plain JavaScript: the embedded DynamoDB's thread loads it without tsx.
import { createRequire } from 'node:module';

/** The iterator prototypes of every abstract-level copy dynalite's back ends (LevelDB, memory) load. */
function iteratorPrototypes() {
  const fromHere = createRequire(import.meta.url);
  const fromDynalite = createRequire(fromHere.resolve('dynalite'));
  const backEnds = [createRequire(fromDynalite.resolve('level')).resolve('classic-level'), fromDynalite.resolve('memory-level')];
  const prototypes = new Set();
  for (const backEnd of backEnds) {
    const { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } = createRequire(backEnd)('abstract-level');
    // Their common base (not exported) holds next() and close().
    for (const c of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) prototypes.add(Object.getPrototypeOf(c.prototype));
  }
  return prototypes;
}

/** Gives abstract-level's iterators the `return()` dynalite closes them with (once per thread; idempotent). */
export function closeLevelIteratorsOnReturn() {
  for (const proto of iteratorPrototypes()) {
    if (typeof proto.return === 'function') continue;
    Object.defineProperty(proto, 'return', {
      configurable: true,
      writable: true,
      value: async function closeOnReturn() {
        await this.close();
        return { done: true, value: undefined };
      },
    });
  }
}
