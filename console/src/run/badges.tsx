// Small pieces every page shows the same way: a Run's state as a coloured badge, its labels as chips.

import { shortened } from "../text";

export function StateBadge({ state }: { state: string }) {
  return <span class={`state state-${state.replace(/[^a-z_]/g, "")}`}>{state}</span>;
}

export function LabelList({ labels }: { labels: Readonly<Record<string, string>> }) {
  return (
    <span class="labels">
      {Object.entries(labels).map(([key, value]) => (
        <span class="label">{shortened(`${key}=${value}`, 60)}</span>
      ))}
    </span>
  );
}
