// A `datetime-local` field's value is a date and time on the clocks of the TIME_ZONE setting; the
// API takes and gives instants. Both sides convert with Intl alone (docs/forms.md).

const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const DAY_MS = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

/** Whether `text` is a date and time as `datetime-local` sends it, on a day the calendar has. */
export const isLocalDateTime = (text: string) => !Number.isNaN(readClock(text));

/**
 * `text`, a `datetime-local` value, read on the clocks of `timeZone`: an ISO instant. A time the
 * clocks skip is moved on by the gap, one they show twice is the first (Temporal's "compatible").
 */
export function toInstant(text: string, timeZone: string) {
  const clock = readClock(text);
  if (Number.isNaN(clock)) return undefined;
  const fits = (time: number) => readClock(formatClock(time, timeZone)) === clock;
  // The zone's offsets a day either side: where they differ, its clocks change near this time.
  const [before, after] = [clock - DAY_MS, clock + DAY_MS].map((time) => getOffset(time, timeZone));
  const later = clock - after!;
  return new Date(fits(later) && !fits(clock - before!) ? later : clock - before!).toISOString();
}

/** How `datetime-local` shows `value` in `timeZone`: an instant on its clocks, else as it is. */
export function toLocalDateTime(value: string, timeZone: string) {
  const time = LOCAL.test(value) ? NaN : Date.parse(value);
  return Number.isNaN(time) ? value : formatClock(time, timeZone).replace(/:00$/, "");
}

// A date and time as milliseconds on UTC's clock; NaN when it is no such thing.
function readClock(text: string) {
  const time = LOCAL.test(text) ? Date.parse(`${text}Z`) : NaN;
  const written = Number.isNaN(time) ? "" : new Date(time).toISOString();
  // Date.parse rolls 31 April over to 1 May: a day the calendar has is written back the same.
  return written.startsWith(text.padEnd(19, ":00")) ? time : NaN;
}

const getOffset = (time: number, timeZone: string) => readClock(formatClock(time, timeZone)) - time;

function formatClock(time: number, timeZone: string) {
  const two = "2-digit";
  const format =
    formats.get(timeZone) ??
    new Intl.DateTimeFormat("en", {
      ...{ year: "numeric", month: two, day: two, hour: two, minute: two, second: two },
      hourCycle: "h23",
      timeZone,
    });
  formats.set(timeZone, format);
  const part = Object.fromEntries(format.formatToParts(time).map((p) => [p.type, p.value]));
  const date = `${part.year!.padStart(4, "0")}-${part.month}-${part.day}`;
  return `${date}T${part.hour}:${part.minute}:${part.second}`;
}
