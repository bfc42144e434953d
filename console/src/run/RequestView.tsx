// What a Run was asked: its prompt as text (never markup) and its settings, as the service keeps them.

import { shown } from "../text";

export function RequestView({ request }: { request: Record<string, unknown> | undefined }) {
  if (request === undefined) return <p class="loading">Reading the request…</p>;
  const { prompt, ...settings } = request;
  return (
    <div class="request">
      <pre class="text prompt" data-field="prompt">
        {shown(String(prompt ?? ""))}
      </pre>
      <dl class="settings">
        {Object.entries(settings).map(([name, value]) => (
          <>
            <dt>{name}</dt>
            <dd>{shown(typeof value === "string" ? value : JSON.stringify(value))}</dd>
          </>
        ))}
      </dl>
    </div>
  );
}
