/** Gives abstract-level's iterators the `return()` dynalite closes them with (see level-iterators.mjs). */
export function closeLevelIteratorsOnReturn(): void;
