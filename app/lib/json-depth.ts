/** Deeper JSON, from the API or to it, can only be a mistake or an attack. */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests deeper than `max`, in one pass counting brackets outside strings:
 * cheap where `JSON.parse` of deep nesting is not. */
export function isNestedDeeperThan(text: string, max: number) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) depth--;
  }
  return false;
}

const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [...'"\\[]{}'].map(
  (c) => c.charCodeAt(0),
);
