// The masker's bounds. A value shorter than MIN_MASKED_VALUE_LENGTH is never masked: it cannot be a
// credential, and masking it would garble every record it happens to occur in. A value longer than
// MAX_ENCODED_VALUE_BYTES is masked only as written (its lines, when it is a secret file, are
// masked in their encodings too): a stream holds back as much as the longest spelling.

/** Values shorter than this, in characters, are not masked; nor is an encoding of a value shorter than this. */
export const MIN_MASKED_VALUE_LENGTH = 6;

/** Values longer than this, in UTF-8 bytes, are masked as written and JSON-escaped, not in their encodings (three characters a byte at most). */
export const MAX_ENCODED_VALUE_BYTES = 8 * 1024;
