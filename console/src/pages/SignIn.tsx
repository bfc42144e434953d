// Signing in: the key (a tenant's key, or the Operator's token for every tenant) is typed or pasted
// here and kept in this tab's session storage only; the form never submits anywhere by itself.

import { useState } from "preact/hooks";

export function SignIn({ refusal, onKey }: { refusal: string | undefined; onKey: (key: string) => void }) {
  const [given, setGiven] = useState("");
  return (
    <main class="sign-in">
      <h1>agentcage console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const key = given.trim();
          if (key !== "") onKey(key);
        }}
      >
        <label>
          API key
          <input
            name="key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={given}
            onInput={(event) => setGiven(event.currentTarget.value)}
            placeholder="ac_… or the Operator's token"
          />
        </label>
        <button type="submit">Sign in</button>
      </form>
      {refusal !== undefined && (
        <p class="error" role="alert">
          {refusal}
        </p>
      )}
      <p class="hint">
        The key stays in this tab (session storage) and goes to the service only as a bearer header. <code>agentcage keys create</code> makes a tenant's key;
        the Operator's token is in the service's runtime directory (<code>service/token</code>).
      </p>
    </main>
  );
}
