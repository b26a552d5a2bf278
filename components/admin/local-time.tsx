'use client';
/**
 * A time in the reader's own time zone and locale. The server renders UTC; the browser re-renders local time, and
 * `suppressHydrationWarning` accepts that one text difference.
 */
const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function LocalTime({ ms, testId }: { ms: number; testId?: string }) {
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} data-testid={testId} suppressHydrationWarning>
      {format.format(date)}
    </time>
  );
}
