// A Run's Outcome: the fields an operator reads first (reason, answer, tokens, cost, exit), then
// the whole Outcome as JSON text for everything else.

import type { Outcome } from "../api";
import { dollars, duration, tokens } from "../format";
import { shortened, shown } from "../text";

export function OutcomeView({ outcome }: { outcome: Outcome }) {
  const usage = outcome.result?.usage;
  return (
    <div class="outcome">
      <dl>
        <dt>Reason</dt>
        <dd data-field="reason">{outcome.reason}</dd>
        {outcome.error !== undefined && (
          <>
            <dt>Error</dt>
            <dd class="error">{shortened(outcome.error, 2_000)}</dd>
          </>
        )}
        <dt>Duration</dt>
        <dd>{duration(outcome.durationMs)}</dd>
        {outcome.result?.text !== undefined && (
          <>
            <dt>Answer</dt>
            <dd>
              <pre class="text" data-field="answer">
                {shown(outcome.result.text)}
              </pre>
            </dd>
          </>
        )}
        {usage !== undefined && (
          <>
            <dt>Tokens</dt>
            <dd>
              {tokens(usage.inputTokens, usage.outputTokens)} ({usage.cacheReadTokens.toLocaleString("en")} cache read,{" "}
              {usage.cacheWriteTokens.toLocaleString("en")} cache write)
            </dd>
          </>
        )}
        {outcome.result?.costUsd !== undefined && (
          <>
            <dt>Cost</dt>
            <dd>
              {dollars(outcome.result.costUsd)}
              {outcome.standIn === true ? ", not real (the stand-in model's made-up usage)" : ""}
            </dd>
          </>
        )}
        {outcome.exit !== undefined && (
          <>
            <dt>Exit</dt>
            <dd>
              code {outcome.exit.code}
              {outcome.exit.signal === undefined ? "" : `, signal ${outcome.exit.signal}`}
              {outcome.exit.oomKilled ? ", out of memory" : ""}
            </dd>
          </>
        )}
        {outcome.session !== undefined && (
          <>
            <dt>Session</dt>
            <dd data-field="session" data-session={outcome.session.kept ? outcome.session.id : undefined}>
              {outcome.session.kept
                ? `kept as ${shortened(outcome.session.id ?? "", 80)}`
                : `not kept${outcome.session.error === undefined ? "" : `: ${shortened(outcome.session.error, 400)}`}`}
            </dd>
          </>
        )}
      </dl>
      <details>
        <summary>The whole Outcome</summary>
        <pre class="text">{shown(JSON.stringify(outcome, null, 2))}</pre>
      </details>
    </div>
  );
}
