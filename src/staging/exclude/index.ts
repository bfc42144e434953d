/**
 * Exclusion: which paths of an input directory a Run leaves out (`inputs.exclude`), as globs
 * checked before anything is made and tested by staging's walk and by a change set's.
 */
export type { Excluded } from "./exclude.js";
export { excludedBy, excludeExpressions, excludeProblem, literalPath, withinExcluded } from "./exclude.js";
