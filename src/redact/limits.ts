// The masker's one bound. A value shorter than this is never masked: it cannot be a credential,
// and masking it would garble every record it happens to occur in.

/** Values shorter than this, in characters, are not masked. */
export const MIN_MASKED_VALUE_LENGTH = 6;
