// The liveness checks' own bounds, in one place, with the unit in the name.

/** The longest an idle machine's bound is stretched to, as a factor: a load past it is counted as it (a runaway reading must not make a wait endless). */
export const MAX_LOAD_FACTOR = 1000;
