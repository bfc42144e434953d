// The clock as a page needs it: the time now, again every `everyMs`, so a running Run's duration counts up.

import { useEffect, useState } from "preact/hooks";

export function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
